# Spack recipe for osmp. osmp has no public release location yet: put this
# file in a Spack repository (spack repo create; packages/osmp/package.py)
# and build a checkout with `spack dev-build osmp@1.0.0` from its root, or
# `spack develop osmp@1.0.0` in an environment. docs/install.md has more.

from spack.package import *


class Osmp(CMakePackage):
    """Topology-aware shared-memory collectives for the processes of one
    node: an hwloc communication tree, per-group shared-memory segments,
    the osmprun launcher, and an MPI side (hierarchical and weighted
    Cartesian communicators, an Open MPI coll component, a PMPI
    interposer)."""

    version("1.0.0")

    variant("openmpi", default=True, description="MPI glue for Open MPI (libosmp_mpi, libosmp_pmpi)")
    variant("mpich", default=False, description="MPI glue for MPICH (libosmp_mpi_mpich, libosmp_pmpi_mpich)")
    variant(
        "ompi_component",
        default=True,
        description="The Open MPI coll component, for the spec's Open MPI, 4.1 or 5.0 (needs its "
        "internal headers, ompi_config.h: Open MPI configured --with-devel-headers)",
    )
    variant("benchmarks", default=False, description="Build and install osmp-bench")
    variant("static", default=True, description="Also install libosmp.a (pkg-config --static)")

    conflicts("+ompi_component", when="~openmpi", msg="the coll component is part of the Open MPI glue")

    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("nlohmann-json", type="build")
    depends_on("hwloc@2:")
    depends_on("openmpi", when="+openmpi")
    # The component's one source builds against either coll framework.
    depends_on("openmpi@4.1:5.0", when="+ompi_component")
    depends_on("mpich", when="+mpich")
    depends_on("benchmark", when="+benchmarks")
    depends_on("googletest", type="test")

    generator("ninja")

    def cmake_args(self):
        def on_off(variant):
            return "ON" if "+" + variant in self.spec else "OFF"

        return [
            self.define("OSMP_BUILD_TESTS", self.run_tests),
            self.define_from_variant("OSMP_BUILD_BENCH", "benchmarks"),
            self.define_from_variant("OSMP_BUILD_STATIC", "static"),
            # ON: a missing MPI is an error instead of a glue silently left out.
            self.define("OSMP_WITH_OMPI", on_off("openmpi")),
            self.define("OSMP_WITH_MPICH", on_off("mpich")),
            self.define("OSMP_WITH_OMPI_COMPONENT", on_off("ompi_component")),
        ]

    def setup_run_environment(self, env):
        # coll/osmp is installed at the place relative to this prefix that
        # Open MPI's components have relative to Open MPI's (lib/openmpi):
        # Open MPI searches one path list, so it gets both.
        if "+ompi_component" in self.spec:
            ompi = self.spec["openmpi"].prefix
            env.set(
                "OMPI_MCA_mca_base_component_path",
                join_path(ompi.lib, "openmpi") + ":" + join_path(self.prefix.lib, "openmpi"),
            )
