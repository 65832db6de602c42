#!/usr/bin/env python3
"""spack_recipe_test.py SOURCE_DIR: imports packaging/spack/package.py with a
stand-in `spack` package (Spack itself is not installed here), then checks
what it declares and what it passes to CMake: every -D it sets must be an
option or cache variable of this project, with the value its variant asks
for."""
import importlib.util
import os
import re
import sys
import tempfile
import types

src = sys.argv[1]
recorded = []  # (directive, args, kwargs) in the order the class body calls them


def directive(name):
    def record(*args, **kwargs):
        recorded.append((name, args, kwargs))
    return record


class CMakePackage:
    """Spack's CMakePackage, as far as the recipe uses it."""

    @staticmethod
    def define(name, value):
        if isinstance(value, bool):
            return f"-D{name}:BOOL={'ON' if value else 'OFF'}"
        return f"-D{name}:STRING={value}"

    def define_from_variant(self, name, variant):
        return self.define(name, self.spec.variants[variant])


class Prefix(str):
    def __getattr__(self, part):
        return Prefix(os.path.join(self, part))


class Spec:
    def __init__(self, variants, deps):
        self.variants = variants
        self.deps = deps

    def __contains__(self, constraint):
        sign, name = constraint[0], constraint[1:]
        assert sign in "+~" and name in self.variants, f"recipe asks the spec for '{constraint}'"
        return self.variants[name] == (sign == "+")

    def __getitem__(self, dep):
        assert dep in self.deps, f"recipe reads dependency '{dep}' the spec lacks"
        return types.SimpleNamespace(prefix=Prefix(f"/spack/{dep}"))


class Env:
    def __init__(self):
        self.vars = {}

    def set(self, name, value):
        self.vars[name] = value


package = types.ModuleType("spack.package")
package.CMakePackage = CMakePackage
package.join_path = os.path.join
for name in ("version", "variant", "depends_on", "conflicts", "generator", "maintainers", "license"):
    setattr(package, name, directive(name))
package.__all__ = [n for n in dir(package) if not n.startswith("_")]
spack = types.ModuleType("spack")
spack.package = package
sys.modules.update({"spack": spack, "spack.package": package})

recipe = os.path.join(src, "packaging", "spack", "package.py")
spec = importlib.util.spec_from_file_location("osmp_recipe", recipe)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
Osmp = module.Osmp
assert issubclass(Osmp, CMakePackage), "Osmp is not a CMakePackage"

variants = {a[0]: kw.get("default") for d, a, kw in recorded if d == "variant"}
assert set(variants) == {"openmpi", "mpich", "ompi_component", "benchmarks", "static"}, variants
deps = {(a[0].split("@")[0], kw.get("when")) for d, a, kw in recorded if d == "depends_on"}
for want in [("hwloc", None), ("cmake", None), ("openmpi", "+openmpi"), ("mpich", "+mpich"),
             ("benchmark", "+benchmarks"), ("openmpi", "+ompi_component")]:
    assert want in deps, f"no depends_on{want}: {sorted(deps, key=str)}"
assert any(d == "conflicts" and a[0] == "+ompi_component" and kw.get("when") == "~openmpi"
           for d, a, kw in recorded), "+ompi_component without ~openmpi conflict"

# What the project accepts: option(NAME ...) and set(NAME ... CACHE ...),
# also through the per-flavour loop (OSMP_WITH_${_F}).
cache_vars = set()
for root, _, files in os.walk(src):
    if "/build" in root or "/.git" in root:
        continue
    for f in files:
        if f == "CMakeLists.txt" or f.endswith(".cmake"):
            text = open(os.path.join(root, f)).read()
            cache_vars |= set(re.findall(r"option\((\w+)", text))
            cache_vars |= set(re.findall(r"set\((\w+) [^)]*CACHE", text))
            if "OSMP_WITH_${_F}" in text:
                flavours = open(os.path.join(src, "cmake", "osmpMpiFlavours.cmake")).read()
                for f_ in re.search(r"OSMP_MPI_FLAVOUR_LIST ([\w ]+)\)", flavours).group(1).split():
                    cache_vars.add("OSMP_WITH_" + f_.upper())

for case in [dict(variants), {**variants, "openmpi": False, "ompi_component": False, "mpich": True,
                              "benchmarks": True, "static": False}]:
    pkg = Osmp.__new__(Osmp)
    pkg.spec = Spec(case, {"openmpi"} if case["openmpi"] else set())
    pkg.run_tests = False
    pkg.prefix = Prefix("/spack/osmp")
    args = pkg.cmake_args()
    defines = dict(re.fullmatch(r"-D(\w+):\w+=(.*)", a).groups() for a in args)
    for name in defines:
        assert name in cache_vars, f"cmake_args sets {name}, which the project does not define"
    expect = {"OSMP_WITH_OMPI": case["openmpi"], "OSMP_WITH_MPICH": case["mpich"],
              "OSMP_WITH_OMPI_COMPONENT": case["ompi_component"], "OSMP_BUILD_BENCH": case["benchmarks"],
              "OSMP_BUILD_STATIC": case["static"], "OSMP_BUILD_TESTS": False}
    for name, on in expect.items():
        assert defines.get(name) == ("ON" if on else "OFF"), f"{case}: {name}={defines.get(name)}"
    env = Env()
    pkg.setup_run_environment(env)
    path = env.vars.get("OMPI_MCA_mca_base_component_path")
    if case["ompi_component"]:
        assert path == "/spack/openmpi/lib/openmpi:/spack/osmp/lib/openmpi", path
    else:
        assert path is None, path
    print("ok:", " ".join(args))
