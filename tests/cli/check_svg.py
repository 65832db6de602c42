#!/usr/bin/env python3
"""check_svg.py [--virtual] NPROCS COMMAND...: osmp-topo's SVG picture is well formed.

In COMMAND, {svg} and {png} stand for files in a temporary folder; the SVG is
read from {svg}, or from stdout when COMMAND has no {svg}. Checks: the root is
an <svg> with width, height and viewBox; the rank cells (class "rank", number
in their first <text>) hold 0..NPROCS-1 once each; there is a leader; with
--virtual, something is marked virtual. When COMMAND has {png}, that file must
be a PNG of the SVG's size.
"""
import os, struct, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def classes(el):
    return el.get("class", "").split()


def check_svg(text, n, want_virtual):
    root = ET.fromstring(text)
    assert root.tag == NS + "svg", root.tag
    for attr in ("width", "height", "viewBox"):
        assert root.get(attr), f"<svg> has no {attr}"
    w, h = int(root.get("width")), int(root.get("height"))
    assert root.get("viewBox").split() == ["0", "0", str(w), str(h)], root.get("viewBox")
    ranks = []
    for el in root.iter():
        if "rank" in classes(el):
            number = el.find(NS + "text")
            assert number is not None, "a rank cell without <text>"
            ranks.append(int(number.text))
    extra = sorted(r for r in set(ranks) if ranks.count(r) > 1 or not 0 <= r < n)
    missing = sorted(set(range(n)) - set(ranks))
    assert not extra and not missing, f"rank cells: missing {missing}, extra or repeated {extra}"
    assert n < 2 or any("leader" in classes(el) for el in root.iter()), "no leader marked"
    if want_virtual:
        assert any("virtual" in classes(el) for el in root.iter()), "nothing marked virtual"
    return w, h


def check_png(path, size):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG: {head[:8]!r}"
    png_size = struct.unpack(">II", head[16:24])
    assert png_size == size, f"PNG is {png_size}, the SVG {size}"


def main():
    args = sys.argv[1:]
    want_virtual = args[0] == "--virtual"
    if want_virtual:
        args = args[1:]
    n, command = int(args[0]), args[1:]
    with tempfile.TemporaryDirectory() as tmp:
        files = {"{svg}": os.path.join(tmp, "tree.svg"), "{png}": os.path.join(tmp, "tree.png")}
        run = subprocess.run([files.get(a, a) for a in command], capture_output=True, text=True)
        assert run.returncode == 0, f"exit {run.returncode}: {run.stderr}"
        if "{svg}" in command:
            with open(files["{svg}"], encoding="utf-8") as f:
                text = f.read()
        else:
            text = run.stdout
        size = check_svg(text, n, want_virtual)
        if "{png}" in command:
            check_png(files["{png}"], size)
    print(f"ok: {n} rank cells, {size[0]}x{size[1]}")


if __name__ == "__main__":
    main()
