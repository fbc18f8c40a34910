"""test_build_attacks.py's submissions: lab 1 submissions that attack the
grader while they are compiled (issue 35). The compiler runs the student's
code too (templates, constexpr, the preprocessor, the assembler): each of
these is the reference solution with an attack added, and what it must get
at a level that hides what lies outside the tree (bwrap, unshare):

  victim          the reference with harmless pragmas (GCC optimize,
                  push_options, diagnostic, message, dependency, poison,
                  _Pragma) and extra files named like compiler flags or
                  response files (ignored); the file the readers below
                  aim at                                                6/6 ok
  reach_build     .incbin, behind __has_include probes, of: the victim's
                  submission, the checkout's solutions/ and its reference
                  object, the starter tree's reference runner and
                  solutions/, its own tree's solutions/ (masked: empty) and
                  reference object (left out); a test throws "escaped" when
                  its probe found bytes                                 6/6 ok
  reach_include   #include of the victim's header by absolute path       0 build failed (no such file)
  reach_parent    the same through ../../../../../submissions/...        0 build failed (no such file)
  shadow          .incbin "/etc/shadow"                                  0 build failed, no byte of it shown
  dev_stdin       #include </dev/stdin> (the build's stdin is /dev/null) 0 build failed: read a file outside
  embed           #embed of the victim's header (only where the compiler
                  has #embed: GCC 15, Clang 19)                         6/6 ok
  dev_zero        #include "/dev/zero"                                   0 build failed: out of memory
  dev_random      #include "/dev/random"                                 0 build failed: out of memory
  tmpl_depth      template recursion past -ftemplate-depth               0 build failed: the compiler's own limit
  bomb_templates  2^40 template instantiations at depth 40               0 build timed out or out of memory
  bomb_constexpr  800 constant evaluations, each under
                  -fconstexpr-ops-limit, together hours                 0 build timed out, or
                                                                          failed at the memory limit
  object_1tb      static char x[1ULL << 40] = {1};                       0 build failed: build output too large
  object_1gb      a 960 MiB initialised array (under the old 1 GiB cap)  0 build failed: build output too large
  link_big        a 150 MiB array in the header: two objects under the
                  cap, a program over it (ld stopped)                   0 build failed: build output too large

At `net` and `none` (nothing hidden) reach_build's probes find their files
(the test fails, as it must: test_build_attacks.py skips those checks there
unless told to run them), and reach_include and reach_parent are refused
after the build ("the build read a file outside the submission").
"""
import re
import subprocess

from checks import REPO
from hostile_probes import with_probes, write
from hostile_verdict import TEMPLATE_BOMB

ORDERS = ["ijk", "ikj", "jik", "jki", "kij", "kji"]
MIB = 1 << 20


class Expect:
    """What a build attack must get: score, build status(es), words its feedback must hold (at every level, and
    at the levels that hide what lies outside the tree, `hidden`, or at the others, `open`), and whether it
    is a reader whose checks need a level that hides."""

    def __init__(self, name, score, build="built", says=(), hidden=(), open=(), reader=False):
        self.name, self.score, self.says, self.hidden, self.open, self.reader = name, score, says, hidden, open, reader
        self.builds = build if isinstance(build, tuple) else (build,)


def _blob(n, has_path, bin_path):
    """A probe: the bytes of bin_path (relative to the tree, where the assembler runs) in the program when the
    preprocessor finds has_path (relative to labs/lab1/, or absolute); hostile_size<n>() is their count, or -1."""
    return (f'#if __has_include("{has_path}")\n'
            f'asm(".pushsection .rodata\\n.globl mml_hostile_blob{n}\\nmml_hostile_blob{n}:\\n'
            f'.incbin \\"{bin_path}\\"\\n.globl mml_hostile_blob{n}_end\\nmml_hostile_blob{n}_end:\\n.byte 0\\n'
            f'.popsection");\n'
            f'extern "C" const char mml_hostile_blob{n}[], mml_hostile_blob{n}_end[];\n'
            f'static long hostile_size{n}() {{ return mml_hostile_blob{n}_end - mml_hostile_blob{n}; }}\n'
            f'#else\nstatic long hostile_size{n}() {{ return -1; }}\n#endif\n')


def reach_targets(sub):
    """order -> [(what, path for __has_include, path for .incbin)]: what reach_build reads, if it can."""
    victim = sub / "victim" / "labs" / "lab1" / "loop_orders.cpp"
    ref_src = REPO / "solutions" / "lab1" / "loop_orders.cpp"
    ref_obj = REPO / "build" / "obj" / "solutions" / "lab1" / "loop_orders.cpp.o"
    runner = "base/build/bin/lab1/reference/mmlab-runner"
    return {
        "ijk": [("another student's submission", victim, victim)],
        "ikj": [("the checkout's solutions/", ref_src, ref_src)],
        "jik": [("the checkout's reference object", ref_obj, ref_obj)],
        "jki": [("the starter tree's reference runner", f"../../../{runner}", f"../{runner}")],
        "kij": [("the starter tree's solutions/", "../../../base/solutions/lab1/loop_orders.cpp",
                 "../base/solutions/lab1/loop_orders.cpp")],
        "kji": [("its own tree's solutions/", "../../solutions/lab1/loop_orders.cpp", "solutions/lab1/loop_orders.cpp"),
                ("its own tree's reference object", "../../build/obj/solutions/lab1/loop_orders.cpp.o",
                 "build/obj/solutions/lab1/loop_orders.cpp.o")],
    }


PRAGMAS = r'''
#pragma GCC push_options
#pragma GCC optimize("O3", "unroll-loops")
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma message("a message at build time: " __FILE__ " " __DATE__)
#pragma GCC dependency "loop_orders.h"
#pragma GCC poison mml_hostile_never_used
_Pragma("GCC diagnostic pop")
'''

DEEP = r'''
// Past -ftemplate-depth (900): the compiler's own limit stops it at once.
template <int N> struct MmlDeep { static constexpr int v = MmlDeep<N + 1>::v; };
int mml_hostile_deep = MmlDeep<0>::v;
'''

CONSTEXPR_BOMB = r'''
// Each constant evaluation stays under g++'s -fconstexpr-ops-limit (2^25 operations) and the 800 nested ones
// under -ftemplate-depth: none of the compiler's limits stops it; together they take hours.
template <int I> constexpr long mml_burn() { long s = I; for (long i = 0; i < 1500; ++i) for (long j = 0; j < 1000; ++j) s += i ^ j; return s; }
template <int I> struct MmlBurn { static constexpr long v = mml_burn<I>() + MmlBurn<I - 1>::v; };
template <> struct MmlBurn<0> { static constexpr long v = 0; };
long mml_hostile_burnt = MmlBurn<800>::v;
'''


def has_embed():
    """The compiler the build uses (g++ here) has #embed (GCC 15, Clang 19): (yes, what it is)."""
    cxx = "g++"
    m = re.search(r"^CXX\s*:?=\s*(\S+)", (REPO / "build" / "config.mk").read_text(errors="replace"), re.M) \
        if (REPO / "build" / "config.mk").is_file() else None
    cxx = m.group(1) if m else cxx
    try:
        r = subprocess.run([cxx, "-std=c++17", "-x", "c++", "-E", "-"], input="#ifdef __has_embed\nMML_HAS_EMBED\n#endif\n",
                           capture_output=True, text=True, timeout=60)
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=60).stdout.split("\n")[0]
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"{cxx}: {e}"
    return "MML_HAS_EMBED" in r.stdout, version


def add_cases(sub, ref):
    """Writes the build attacks under sub (ref: the reference's files as handed in); returns their Expects and
    the victim's marker (a line of its header no other student's feedback may show)."""
    marker = "mml-victim-marker-7f3a9c"
    cases = []

    def put(name, files):
        write(sub / name / "labs" / "lab1", files)

    victim = dict(ref)
    victim["loop_orders.cpp"] = victim["loop_orders.cpp"].replace("#include <algorithm>", PRAGMAS + "#include <algorithm>", 1) \
        + "\n#pragma GCC pop_options\n"
    victim["loop_orders.h"] = f"// {marker}\n" + victim["loop_orders.h"]
    put("victim", victim)
    for odd in ("-include loop_orders.h", "@loop_orders.cpp", "--param=x.cpp"):
        (sub / "victim" / "labs" / "lab1" / odd).write_text("#error this file must never reach the compiler\n")
    cases.append(Expect("victim", 6, says=["Ignored (not part of lab 1", "-include loop_orders.h", "@loop_orders.cpp"]))

    # Readers: each test checks one of the files a build must not be able to read.
    blobs, bodies, n = "", {}, 0
    for order, targets in reach_targets(sub).items():
        checks = []
        for what, has_path, bin_path in targets:
            blobs += _blob(n, has_path, bin_path)
            checks.append(f'if (hostile_size{n}() > 0) hostile::escaped("the build read {what} into the program (" + '
                          f'std::to_string(hostile_size{n}()) + " bytes)");')
            n += 1
        bodies[order] = " ".join(checks)
    put("reach_build", with_probes(ref, bodies, extra_top=blobs))
    cases.append(Expect("reach_build", 6, reader=True))

    header = sub / "victim" / "labs" / "lab1" / "loop_orders.h"
    put("reach_include", dict(ref, **{"loop_orders.cpp": f'#include "{header}"\n' + ref["loop_orders.cpp"]}))
    put("reach_parent", dict(ref, **{"loop_orders.cpp": '#include "../../../../../submissions/victim/labs/lab1/'
                                                         'loop_orders.h"\n' + ref["loop_orders.cpp"]}))
    for name in ("reach_include", "reach_parent"):
        cases.append(Expect(name, 0, "build failed", hidden=["No such file or directory"],
                            open=["the build read a file outside the submission"]))

    put("shadow", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] +
                               '\nasm(".pushsection .rodata\\n.incbin \\"/etc/shadow\\"\\n.popsection");\n'}))
    cases.append(Expect("shadow", 0, "build failed", says=["/etc/shadow"]))

    put("dev_stdin", dict(ref, **{"loop_orders.cpp": '#include </dev/stdin>\n' + ref["loop_orders.cpp"]}))
    cases.append(Expect("dev_stdin", 0, "build failed", says=["the build read a file outside the submission (/dev/stdin)"]))

    embed, _ = has_embed()
    if embed:
        put("embed", with_probes(ref, {"ijk": 'if (sizeof mml_embedded > 1) hostile::escaped("#embed read another '
                                              'student\'s file");'},
                                 extra_top=f'#if __has_embed("{header}")\nstatic const char mml_embedded[] = {{\n'
                                           f'#embed "{header}"\n, 0}};\n#else\nstatic const char mml_embedded[] = {{0}};\n'
                                           '#endif\n'))
        cases.append(Expect("embed", 6, reader=True))

    # The compiler made to run for ever or to eat the machine.
    put("dev_zero", dict(ref, **{"loop_orders.cpp": '#include "/dev/zero"\n' + ref["loop_orders.cpp"]}))
    put("dev_random", dict(ref, **{"loop_orders.cpp": '#include "/dev/random"\n' + ref["loop_orders.cpp"]}))
    for name in ("dev_zero", "dev_random"):
        cases.append(Expect(name, 0, "build failed", says=["the compiler ran out of memory"]))
    put("tmpl_depth", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] + DEEP}))
    cases.append(Expect("tmpl_depth", 0, "build failed", says=["template instantiation depth exceeds"]))
    put("bomb_templates", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] + TEMPLATE_BOMB}))
    cases.append(Expect("bomb_templates", 0, ("build timed out", "build failed")))
    put("bomb_constexpr", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] + CONSTEXPR_BOMB}))
    # Whichever of its limits stops it first, named: the build's clock, or its memory (a fast machine reaches
    # the compiler's 1024 MiB before the 40 s; seen in CI: "ran out of memory" at 37 s).
    cases.append(Expect("bomb_constexpr", 0, ("build timed out", "build failed"), says=["limit"]))

    # Output too large: the assembler's object, the linker's program.
    put("object_1tb", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] +
                                   "\nstatic char mml_hostile_tb[1ULL << 40] __attribute__((used)) = {1};\n"}))
    put("object_1gb", dict(ref, **{"loop_orders.cpp": ref["loop_orders.cpp"] +
                                   f"\nstatic char mml_hostile_gb[{(1 << 30) - 64 * MIB}] __attribute__((used)) = {{1}};\n"}))
    put("link_big", dict(ref, **{"loop_orders.h": ref["loop_orders.h"] +
                                 f"\nstatic char mml_hostile_half[{150 * MIB}] __attribute__((used)) = {{1}};\n"}))
    for name in ("object_1tb", "object_1gb", "link_big"):
        cases.append(Expect(name, 0, "build failed", says=["build output too large"]))
    return cases, marker
