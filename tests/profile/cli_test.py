#!/usr/bin/env python3
"""`pitot profile` end to end with stand-in profilers (fake/): one scenario per ctest test.

Usage: cli_test.py PITOT_EXECUTABLE SCENARIO WORK_DIR
"""
import gzip, json, os, shutil, subprocess, sys, time, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake")
PROGRAM = os.path.join(FAKE, "bench_fake")


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(pitot, work, args, env=None, path_with_fakes=True, timeout=120):
    e = dict(os.environ)
    e["PYTHONDONTWRITEBYTECODE"] = "1"
    e["FAKE_ARGV_LOG"] = os.path.join(work, "argv.log")
    e["FAKE_PROGRAM_ARGV"] = os.path.join(work, "program-argv.log")
    e["PATH"] = (FAKE + os.pathsep if path_with_fakes else "") + os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin"
    e.update(env or {})
    t0 = time.time()
    p = subprocess.run([pitot, "profile"] + args, cwd=work, env=e, capture_output=True, text=True, timeout=timeout)
    p.seconds = time.time() - t0
    return p


def tool_calls(work, tool):
    path = os.path.join(work, "argv.log")
    if not os.path.exists(path):
        return []
    return [c for c in map(json.loads, open(path)) if c["tool"] == tool]


def manifest(z):
    return json.loads(z.read("manifest.json"))


def expect_rc(p, rc):
    check(p.returncode == rc, "exit code %d, wanted %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, rc, p.stdout, p.stderr))


def leftovers(work):
    return [n for n in os.listdir(work) if n.startswith(".") or n.endswith(".tmp")]


# --- scenarios -----------------------------------------------------------------------------------

def ncu_ok(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--filter", "copy", "-o", "out.zip"])
    expect_rc(p, 0)
    z = zipfile.ZipFile(os.path.join(work, "out.zip"))
    names = set(z.namelist())
    for n in ("manifest.json", "summary.txt", "profile/report.ncu-rep", "profile/ncu-details.txt",
              "profile/ncu-raw.csv", "results.json", "stdout.txt", "stderr.txt"):
        check(n in names, "zip lacks " + n + ": " + str(sorted(names)))
    m = manifest(z)
    check(m["tool"]["name"] == "ncu" and "2025.3.1" in m["tool"]["version"], "tool/version: %s" % m["tool"])
    cmd = m["command"]
    check(cmd[cmd.index("--nvtx-include") + 1] == "regex:pitot:.*/", "nvtx filter in %s" % cmd)
    check(cmd[cmd.index("--set") + 1] == "full" and cmd[cmd.index("--clock-control") + 1] == "base", "set/clocks")
    check(cmd[cmd.index("--target-processes") + 1] == "all", "target processes")
    check([pt["name"] for pt in m["points"]] == ["copy[n=1024]", "copy[n=4096]"], "points: %s" % m["points"])
    check(m["exit"]["code"] == 0 and m["wall_seconds"]["profiled_run"] > 0, "exit/wall: %s" % m["exit"])
    check(m["dropped"] == [] and m["kept_folder"] is None, "nothing dropped")
    check(m["system"].get("device", {}).get("name") == "Fake GPU" and "cpu" in m["system"], "system facts")
    check(m["noise_lines_filtered"] >= 4, "noise count %s" % m["noise_lines_filtered"])
    sizes = {a["name"]: a["bytes"] for a in m["artifacts"]}
    check(sizes["profile/report.ncu-rep"] == 20000, "artifact sizes %s" % sizes)
    # The program got the selection and profile mode.
    prog = [json.loads(l) for l in open(os.path.join(work, "program-argv.log"))]
    check(any("--profile" in a and a[a.index("--filter") + 1] == "copy" for a in prog), "program argv %s" % prog)
    # Follow-ups: details page and raw CSV from the report.
    imports = [c["argv"] for c in tool_calls(work, "ncu") if "--import" in c["argv"]]
    check(len(imports) == 2, "ncu --import calls: %s" % imports)
    # Noise: gone from what the user reads, kept in the raw stream in the zip.
    check("==PROF==" not in p.stdout + p.stderr, "noise reached the user:\n" + p.stdout + p.stderr)
    check("==PROF==" in z.read("stderr.txt").decode(), "raw stderr lost the profiler lines")
    summary = z.read("summary.txt").decode()
    check("copy_kernel" in summary and "copy[n=1024]" in summary and "2.37 us" in summary, "summary:\n" + summary)
    check("the program's own line on stderr" in summary, "program stderr missing from summary")
    check(os.path.getsize(os.path.join(work, "out.zip")) <= 8_000_000, "over budget")
    check(leftovers(work) == [], "left behind: %s" % leftovers(work))


def ncu_options(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--ncu-set", "basic", "--clock-control", "none",
                          "--tool-arg=--cache-control=none", "--axis", "n=1024", "-o", "o.zip", "--", "--timing", "hot"])
    expect_rc(p, 0)
    calls = [c["argv"] for c in tool_calls(work, "ncu") if "--export" in c["argv"]]
    check(len(calls) == 1, "one profiled run: %s" % calls)
    a = calls[0]
    dd = a.index("--")
    check(a[a.index("--set") + 1] == "basic" and a[a.index("--clock-control") + 1] == "none", "options %s" % a)
    check(a.index("--cache-control=none") < dd, "tool arg after -- in %s" % a)
    check(a[dd + 1:][-2:] == ["--timing", "hot"] and a[a.index("--axis") + 1] == "n=1024", "program args %s" % a)


def missing_tool(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "-o", "x.zip"], path_with_fakes=False)
    expect_rc(p, 2)
    check("ncu" in p.stderr and "not found" in p.stderr, "message: " + p.stderr)
    check(not os.path.exists(os.path.join(work, "x.zip")) and leftovers(work) == [], "files written")
    p = run(pitot, work, [PROGRAM, "--tool", "rocprofv3", "--tool-path", "/nonexistent/rocprofv3"])
    expect_rc(p, 2)
    check("rocprofv3" in p.stderr, "message: " + p.stderr)


def bad_selection(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--filter", "no-such-point", "-o", "x.zip"])
    expect_rc(p, 2)
    check("no point" in p.stderr, "message: " + p.stderr)
    p = run(pitot, work, ["no_such_program", "--tool", "ncu", "-o", "x.zip"])
    expect_rc(p, 2)
    check("no_such_program" in p.stderr, "message: " + p.stderr)
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--max-size", "lots"])
    expect_rc(p, 2)
    check(not os.path.exists(os.path.join(work, "x.zip")) and leftovers(work) == [], "files written")
    check(tool_calls(work, "ncu") == [], "the profiler ran")


def tool_fails(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "-o", "f.zip"], env={"FAKE_MODE": "fail"})
    expect_rc(p, 1)
    z = zipfile.ZipFile(os.path.join(work, "f.zip"))
    m = manifest(z)
    check(m["exit"]["code"] == 1, "exit %s" % m["exit"])
    check(all(pt["status"] == "not reported" for pt in m["points"]) and len(m["points"]) == 3, "points %s" % m["points"])
    check(any("no report" in n for n in m["notes"]), "notes %s" % m["notes"])
    summary = z.read("summary.txt").decode()
    check("FAILED" in summary and "==ERROR== Failed to profile" in summary, "summary:\n" + summary)
    check("==ERROR== Failed to profile" in p.stdout, "the error line must reach the user")


def tool_hangs(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--timeout", "2", "-o", "h.zip"], env={"FAKE_MODE": "hang"})
    expect_rc(p, 1)
    check(p.seconds < 30, "took %.1f s" % p.seconds)
    m = manifest(zipfile.ZipFile(os.path.join(work, "h.zip")))
    check(m["exit"]["timed_out"] is True and m["exit"]["code"] is None, "exit %s" % m["exit"])
    check("time limit" in p.stderr, "stderr: " + p.stderr)


def budget_drops(pitot, work):
    # Report 300 kB (random), code objects 2 x 800 kB and raw CSV 400 kB of hex (about half that deflated);
    # 450 kB allowed:
    # code objects go first, then the raw CSV; the details (small) stay.
    env = {"FAKE_REPORT_BYTES": "300000", "FAKE_CUOBJDUMP_BYTES": "800000", "FAKE_RAW_BYTES": "400000"}
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--code-objects", "--max-size", "450kB", "-o", "b.zip"], env=env)
    expect_rc(p, 0)
    size = os.path.getsize(os.path.join(work, "b.zip"))
    check(size <= 450_000, "zip %d bytes over budget" % size)
    z = zipfile.ZipFile(os.path.join(work, "b.zip"))
    m = manifest(z)
    dropped = [d["name"] for d in m["dropped"]]
    check(sorted(dropped[:2]) == ["code-objects/ptx.txt", "code-objects/sass.txt"], "drop order %s" % dropped)
    check("profile/ncu-raw.csv" in dropped, "raw csv kept at 450kB? %s" % dropped)
    check(all("budget" in d["reason"] for d in m["dropped"]), "reasons %s" % m["dropped"])
    names = set(z.namelist())
    check("profile/report.ncu-rep" in names and "profile/ncu-details.txt" in names, "kept %s" % names)
    check(not any(n.startswith("code-objects/") for n in names), "code objects in zip")
    check("left out to fit" in z.read("summary.txt").decode(), "summary does not say what was dropped")
    # With room, the code objects come along.
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--code-objects", "--max-size", "8MB", "-o", "c.zip"], env=env)
    expect_rc(p, 0)
    names = set(zipfile.ZipFile(os.path.join(work, "c.zip")).namelist())
    check({"code-objects/sass.txt", "code-objects/ptx.txt"} <= names, "code objects missing: %s" % names)


def essential_too_big(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--max-size", "500kB", "-o", "big.zip"],
            env={"FAKE_REPORT_BYTES": "2000000"})
    expect_rc(p, 0)
    z = zipfile.ZipFile(os.path.join(work, "big.zip"))
    check(os.path.getsize(os.path.join(work, "big.zip")) <= 500_000, "zip over budget")
    names = set(z.namelist())
    check("profile/report.ncu-rep" not in names and {"manifest.json", "summary.txt"} <= names, "zip %s" % names)
    m = manifest(z)
    kept = m["kept_folder"]
    check(kept and os.path.isfile(os.path.join(kept, "profile", "report.ncu-rep")), "kept folder %s" % kept)
    check(os.path.basename(kept) == "big-profile", "kept folder name %s" % kept)
    check(kept in p.stderr, "the message must say where: " + p.stderr)
    check(any(d["name"] == "profile/report.ncu-rep" and "folder" in d["reason"] for d in m["dropped"]), "dropped %s" % m["dropped"])


def noisy_flood(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--max-size", "200kB", "-o", "n.zip"], env={"FAKE_MODE": "flood"})
    expect_rc(p, 0)
    z = zipfile.ZipFile(os.path.join(work, "n.zip"))
    names = set(z.namelist())
    check("stdout.tail.txt" in names, "no stdout tail: %s" % names)
    m = manifest(z)
    check("stdout.txt" in [d["name"] for d in m["dropped"]] or "stdout.txt" in names, "stdout whole: %s" % m["dropped"])
    check(len(z.read("stdout.tail.txt")) <= 65536, "tail too long")


def keep_dir(pitot, work):
    d = os.path.join(work, "kept")
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--keep-dir", d, "-o", "k.zip"])
    expect_rc(p, 0)
    for n in ("manifest.json", "summary.txt", "profile/report.ncu-rep", "stderr.txt"):
        check(os.path.isfile(os.path.join(d, n)), "kept dir lacks " + n)
    p = run(pitot, work, [PROGRAM, "--tool", "ncu", "--keep-dir", d, "-o", "k2.zip"])
    expect_rc(p, 2)  # not empty: refused, nothing overwritten


def rocprofv3(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "rocprofv3", "--code-objects", "-o", "r.zip"])
    expect_rc(p, 0)
    call = [c for c in tool_calls(work, "rocprofv3") if "--kernel-trace" in c["argv"]][0]
    a = call["argv"]
    check("--hsa-trace" not in a, "hsa trace asked")
    check(a[a.index("--output-format") + 1: a.index("--output-format") + 3] == ["pftrace", "csv"], "formats %s" % a)
    check(call["env"].get("GPU_DUMP_CODE_OBJECT") == "1" and call["cwd"].endswith("code-objects"), "code objects %s" % call)
    z = zipfile.ZipFile(os.path.join(work, "r.zip"))
    names = set(z.namelist())
    check(z.read("profile/trace.pftrace") == b"PFTRACE-4242;PFTRACE-4243;", "merged pftrace")
    check(any(n.endswith("4243_kernel_stats.csv") for n in names), "csv per process %s" % names)
    check(any(n.startswith("code-objects/") for n in names), "code objects %s" % names)
    check("perfetto.cc" not in p.stdout + p.stderr and "W20250601" not in p.stdout + p.stderr, "noise shown")
    check("perfetto.cc" in z.read("stderr.txt").decode(), "raw stream lost lines")
    p = run(pitot, work, [PROGRAM, "--tool", "rocprofv3", "--hsa-trace", "-o", "r2.zip"])
    expect_rc(p, 0)
    check(any("--hsa-trace" in c["argv"] for c in tool_calls(work, "rocprofv3")), "--hsa-trace not passed")


def nsys(pitot, work):
    p = run(pitot, work, [PROGRAM, "--tool", "nsys", "-o", "s.zip"])
    expect_rc(p, 0)
    names = set(zipfile.ZipFile(os.path.join(work, "s.zip")).namelist())
    check({"profile/report.nsys-rep", "profile/stats_cuda_gpu_kern_sum.csv", "profile/report.sqlite"} <= names, "zip %s" % names)
    check("Collecting data" not in p.stdout, "nsys noise shown")


def cupti_fake(pitot, work):
    lib = os.path.join(work, "libpitot_cupti.so")
    open(lib, "w").write("stand-in: the fake program writes the traces itself\n")
    p = run(pitot, work, [PROGRAM, "--tool", "cupti", "--tool-path", lib, "-o", "t.zip"])
    expect_rc(p, 0)
    z = zipfile.ZipFile(os.path.join(work, "t.zip"))
    trace = json.loads(gzip.decompress(z.read("profile/trace.json.gz")))
    pids = {e["pid"] for e in trace["traceEvents"]}
    check(len(pids) == 2, "pids %s" % pids)
    ts = [e["ts"] for e in trace["traceEvents"] if e["ph"] != "M"]
    check(ts == sorted(ts), "not in time order")
    m = manifest(z)
    check(m["environment"]["CUDA_INJECTION64_PATH"] == lib, "env %s" % m["environment"])
    check(m["trace"]["processes"] == 2 and m["trace"]["kernels"] >= 4, "trace %s" % m["trace"])
    check(any("incomplete" in n for n in m["notes"]), "cut file not noted: %s" % m["notes"])
    summary = z.read("summary.txt").decode()
    check("copy[n=1024]" in summary and "12.50 us" in summary, "summary:\n" + summary)


SCENARIOS = {f.__name__: f for f in (ncu_ok, ncu_options, missing_tool, bad_selection, tool_fails, tool_hangs,
                                      budget_drops, essential_too_big, noisy_flood, keep_dir, rocprofv3, nsys,
                                      cupti_fake)}


def main():
    pitot, name, work = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        SCENARIOS[name](pitot, work)
    except Failure as e:
        print("FAIL %s: %s" % (name, e))
        return 1
    print("ok " + name)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
