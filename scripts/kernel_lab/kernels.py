"""Debian kernel packages through a private apt configuration.

Everything lives under one cache folder (CIDKIT_KERNEL_CACHE, default
~/.cache/cidkit/kernels):
  apt/       apt.conf, sources.list, lists, status: apt's own state, private
  debs/      where apt-get download drops a package (deleted once extracted)
  images/PACKAGE_VERSION_ARCH/vmlinuz   the extracted image (and config-*)
  busybox/ARCH/busybox                  busybox-static for the arm64 guest
The mirror is the first URI of the machine's own apt sources (read at run
time, never written down); CIDKIT_KERNEL_MIRROR overrides it.  The
machine's apt setup is never changed: every apt call gets APT_CONFIG.

A kernel is found by suite, exact version, or line (see resolve()).  Since
6.19 the image is in linux-binary-ABI-FLAVOUR, before in
linux-image-ABI-FLAVOUR (6.1.0-50, 6.12.117+deb13, 7.3 in experimental);
only the plain amd64 / arm64 flavours are used (not cloud, rt, 16k).
"""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import time

SUITES = ["bookworm", "trixie", "trixie-backports", "sid", "experimental"]
DEB_ARCH = {"x86_64": "amd64", "arm64": "arm64"}
LISTS_MAX_AGE = 24 * 3600  # refresh the package lists once a day

NAME_RE = re.compile(
    r"^linux-(image|binary)-(\d+\.\d+(?:\.\d+)?(?:-\d+)?(?:\+deb\d+)?)-(amd64|arm64)$")


class LabError(Exception):
    """One line for the user; the runner prints it as 'kernel-lab: ...', exit 2."""


def cache_dir():
    d = os.environ.get("CIDKIT_KERNEL_CACHE")
    return d or os.path.join(os.path.expanduser("~"), ".cache", "cidkit", "kernels")


def machine_mirror():
    """The URI of the machine's own Debian archive (not -security)."""
    env = os.environ.get("CIDKIT_KERNEL_MIRROR")
    if env:
        return env.rstrip("/")
    uris = []
    for f in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for line in open(f, errors="replace"):
            m = re.match(r"^URIs:\s*(.*)$", line.strip())
            if m:
                uris += m.group(1).split()
    for f in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
        if os.path.exists(f):
            for line in open(f, errors="replace"):
                w = re.sub(r"\[[^]]*\]", "", line.split("#")[0]).split()
                if len(w) >= 3 and w[0] == "deb":
                    uris.append(w[1])
    uris = [u for u in uris if re.match(r"^https?://", u) and "security" not in u]
    if not uris:
        raise LabError("no http(s) Debian mirror in this machine's apt sources "
                       "(set CIDKIT_KERNEL_MIRROR)")
    return uris[0].rstrip("/")


def vercmp_key(v):
    """A sort key that orders Debian versions as dpkg does (epoch, then
    upstream-revision compared by runs of non-digits and digits, '~' first)."""
    def part(s):
        out = []
        for nd, d in re.findall(r"(\D*)(\d*)", s):
            if not nd and not d:
                continue
            out.append(tuple((0 if c == "~" else 1 if not c else
                              2 + ord(c) if c.isalpha() else 300 + ord(c))
                             for c in nd) + (1,))  # end of a run sorts after '~'
            out.append(int(d) if d else 0)
        # A missing part compares as an empty one ("1.0~rc" < "1.0" < "1.0.1").
        return out + [(1,), 0] * (40 - len(out) // 2)
    epoch, _, rest = v.rpartition(":") if ":" in v else ("0", "", v)
    up, _, rev = rest.rpartition("-") if "-" in rest else (rest, "", "0")
    return (int(epoch or 0), part(up), part(rev))


class Apt:
    """The private apt configuration."""

    def __init__(self):
        self.root = cache_dir()
        self.dir = os.path.join(self.root, "apt")
        self.conf = os.path.join(self.dir, "apt.conf")

    def setup(self):
        mirror = machine_mirror()
        for d in ("etc/parts", "lists/partial", "cache/archives/partial"):
            os.makedirs(os.path.join(self.dir, d), exist_ok=True)
        keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
        sources = "".join(
            f"deb [arch=amd64,arm64 signed-by={keyring}] {mirror} {s} main\n"
            for s in SUITES)
        d = self.dir
        conf = f"""// written by scripts/kernel-lab; private to the kernel lab
Dir::Etc::sourcelist "{d}/etc/sources.list";
Dir::Etc::sourceparts "{d}/etc/parts";
Dir::Etc::parts "{d}/etc/parts";
Dir::Etc::preferences "{d}/etc/preferences";
Dir::Etc::preferencesparts "{d}/etc/parts";
Dir::State "{d}";
Dir::State::lists "{d}/lists";
Dir::State::status "{d}/status";
Dir::Cache "{d}/cache";
Dir::Cache::srcpkgcache "";
APT::Architecture "amd64";
APT::Architectures {{ "amd64"; "arm64"; }};
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::GzipIndexes "true";
Acquire::Retries "1";
Acquire::http::Timeout "20";
// a fixed snapshot of sid/experimental may be past its Valid-Until
Acquire::Check-Valid-Until "false";
"""
        self._write(os.path.join(d, "etc", "sources.list"), sources)
        self._write(self.conf, conf)
        if not os.path.exists(os.path.join(d, "status")):
            self._write(os.path.join(d, "status"), "")

    @staticmethod
    def _write(path, text):
        try:
            if open(path).read() == text:
                return
        except OSError:
            pass
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)

    def env(self):
        e = dict(os.environ, APT_CONFIG=self.conf, LC_ALL="C")
        return e

    def run(self, args, cwd=None):
        return subprocess.run(args, env=self.env(), cwd=cwd, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def have_lists(self):
        return bool(glob.glob(os.path.join(self.dir, "lists", "*_Packages*")))

    def update(self, force=False):
        """Fetch the package lists if missing or a day old.  A failed refresh
        keeps the old lists; no lists at all is an error."""
        self.setup()
        stamp = os.path.join(self.dir, "updated")
        fresh = (os.path.exists(stamp) and
                 time.time() - os.path.getmtime(stamp) < LISTS_MAX_AGE)
        if self.have_lists() and fresh and not force:
            return
        r = self.run(["apt-get", "-q", "update"])
        errs = self.errors(r.stdout + r.stderr)
        if r.returncode == 0 and not errs and self.have_lists():
            open(stamp, "w").close()
            return
        if self.have_lists():
            return
        why = errs[0] if errs else f"apt-get update exited {r.returncode}"
        raise LabError(f"cannot fetch the kernel package lists (no network?): {why}")

    @staticmethod
    def errors(text):
        """apt's error lines, the mirror's address replaced by <mirror>."""
        mirror = machine_mirror()
        return [re.sub(r"\s+", " ", l.replace(mirror, "<mirror>")).strip()
                for l in text.splitlines()
                if l.startswith(("E:", "Err:", "W: Failed", "W: Some index"))]

    def index(self):
        """Every plain amd64/arm64 kernel: dicts with suite, version (the
        package's), upstream, abi, arch (x86_64|arm64), package."""
        r = self.run(["apt-cache", "pkgnames", "linux-"])
        names = [n for n in r.stdout.split() if NAME_RE.match(n)]
        if not names:
            return []
        q = [n + (":arm64" if n.endswith("-arm64") else "") for n in names]
        r = self.run(["apt-cache", "madison"] + q)
        rows = {}
        for line in r.stdout.splitlines():
            f = [x.strip() for x in line.split("|")]
            if len(f) != 3 or not f[2].endswith("Packages"):
                continue
            name = f[0].split(":")[0]
            kind, abi, darch = NAME_RE.match(name).groups()
            suite = f[2].split()[1].split("/")[0]
            arch = "x86_64" if darch == "amd64" else "arm64"
            key = (suite, abi, arch, f[1])
            # Prefer linux-binary (6.19 on): linux-image is then a metapackage.
            if key in rows and rows[key]["kind"] == "binary":
                continue
            rows[key] = dict(suite=suite, version=f[1], abi=abi, arch=arch,
                             upstream=f[1].split("-")[0].split(":")[-1],
                             package=name, kind=kind)
        out = list(rows.values())
        for k in out:
            k["cached"] = os.path.exists(self.image_path(k))
        out.sort(key=lambda k: (SUITES.index(k["suite"]) if k["suite"] in SUITES else 99,
                                k["arch"], vercmp_key(k["version"])))
        return out

    def image_dir(self, k):
        return os.path.join(self.root, "images",
                            f"{k['package']}_{k['version']}_{k['arch']}".replace(":", "%"))

    def image_path(self, k):
        return os.path.join(self.image_dir(k), "vmlinuz")

    def download(self, pkg, darch, version, dest):
        """apt-get download one package into dest; return the .deb's path."""
        os.makedirs(dest, exist_ok=True)
        spec = f"{pkg}:{darch}={version}" if version else f"{pkg}:{darch}"
        for f in glob.glob(os.path.join(dest, "*.deb")):
            os.unlink(f)
        r = self.run(["apt-get", "-q", "download", spec], cwd=dest)
        debs = glob.glob(os.path.join(dest, "*.deb"))
        if r.returncode != 0 or len(debs) != 1:
            why = self.errors(r.stdout + r.stderr)
            raise LabError(f"cannot download {spec} (no network?): "
                           f"{why[0] if why else 'apt-get download exited %d' % r.returncode}")
        return debs[0]

    def fetch_kernel(self, k):
        """The image of kernel k, downloaded and extracted once."""
        img = self.image_path(k)
        if os.path.exists(img):
            return img
        deb = self.download(k["package"], DEB_ARCH[k["arch"]], k["version"],
                            os.path.join(self.root, "debs"))
        tmp = tempfile.mkdtemp(dir=self.root, prefix="extract.")
        try:
            # Only the image, its config and System.map (the lab maps a
            # wedged vCPU's instruction pointer to a symbol with it): a 6.12
            # package holds 100 MB of modules.
            deb_tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb],
                                       stdout=subprocess.PIPE)
            tar = subprocess.run(
                ["tar", "-x", "-C", tmp, "--wildcards", "./boot/vmlinuz-*",
                 "./boot/config-*", "./boot/System.map-*",
                 "./usr/lib/modules/*/vmlinuz", "./usr/lib/modules/*/config",
                 "./usr/lib/modules/*/System.map"],
                stdin=deb_tar.stdout, stderr=subprocess.DEVNULL)
            deb_tar.stdout.close()
            deb_tar.wait()
            found = (glob.glob(os.path.join(tmp, "boot", "vmlinuz-*")) +
                     glob.glob(os.path.join(tmp, "usr/lib/modules/*/vmlinuz")))
            if len(found) != 1:
                raise LabError(f"no kernel image in {os.path.basename(deb)} "
                               f"(tar {tar.returncode})")
            d = self.image_dir(k)
            os.makedirs(d, exist_ok=True)
            for c in (glob.glob(os.path.join(tmp, "boot", "config-*")) +
                      glob.glob(os.path.join(tmp, "usr/lib/modules/*/config"))):
                shutil.copy(c, os.path.join(d, "config"))
            for c in (glob.glob(os.path.join(tmp, "boot", "System.map-*")) +
                      glob.glob(os.path.join(tmp, "usr/lib/modules/*/System.map"))):
                shutil.copy(c, os.path.join(d, "System.map"))
            with open(os.path.join(d, "deb-size"), "w") as f:
                f.write(f"{os.path.getsize(deb)}\n")
            shutil.move(found[0], img + ".tmp")
            os.replace(img + ".tmp", img)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            os.unlink(deb)
        return img

    def busybox(self, arch):
        """A static busybox for the guest: the machine's own busybox-static
        on x86_64, the arm64 package (bookworm's) through the private apt."""
        if arch == "x86_64":
            for p in ("/bin/busybox", "/usr/bin/busybox"):
                if os.path.exists(p) and "statically linked" in subprocess.run(
                        ["file", "-L", p], text=True, stdout=subprocess.PIPE).stdout:
                    return p
            raise LabError("no static busybox here: install busybox-static "
                           "(scripts/bootstrap.sh)")
        out = os.path.join(self.root, "busybox", arch, "busybox")
        if os.path.exists(out):
            return out
        self.update()
        deb = self.download("busybox-static", DEB_ARCH[arch], None,
                            os.path.join(self.root, "debs"))
        tmp = tempfile.mkdtemp(dir=self.root, prefix="extract.")
        try:
            subprocess.run(["dpkg-deb", "-x", deb, tmp], check=True)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            found = (glob.glob(os.path.join(tmp, "bin", "busybox")) +
                     glob.glob(os.path.join(tmp, "usr", "bin", "busybox")))
            if not found:
                raise LabError(f"no busybox in {os.path.basename(deb)}")
            shutil.move(found[0], out + ".tmp")
            os.replace(out + ".tmp", out)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            os.unlink(deb)
        return out


def resolve(apt, spec, arch, fetch=True):
    """K -> (description dict, image path).  K is a path to an image, a
    suite (its newest kernel), an exact version (upstream 6.19.6, package
    6.19.6-2~bpo13+1, or ABI 6.1.0-50), or a line X.Y (its newest released
    kernel, experimental only if nothing else has it); SUITE/K looks for K
    in that suite only (trixie-backports/7.2)."""
    suite, _, rest = spec.partition("/")
    if suite in SUITES and rest and not os.path.exists(spec):
        spec = rest  # SUITE/K: K among that suite's kernels only
    else:
        suite = None
    if suite is None and ("/" in spec or os.path.isfile(spec)):
        if not os.path.isfile(spec):
            raise LabError(f"--kernel {spec}: no such file")
        return dict(suite="-", version="-", upstream="-", arch=arch,
                    package=os.path.basename(spec), cached=True), spec
    try:
        apt.update()
    except LabError:
        # No network and no lists: still usable if the image is cached.
        k = cached_match(apt, spec, arch)
        if k:
            return k, apt.image_path(k)
        raise
    ks = [k for k in apt.index() if k["arch"] == arch and suite in (None, k["suite"])]
    if spec in SUITES:
        cand = [k for k in ks if k["suite"] == spec]
    else:
        line = re.match(r"^\d+\.\d+$", spec)
        cand = [k for k in ks if spec in (k["upstream"], k["version"]) or
                (spec == k["abi"] and not line)]  # ABI 7.3 is experimental's rc
        if not cand and line:
            cand = [k for k in ks if k["upstream"].startswith((spec + ".", spec + "~"))]
            rel = [k for k in cand if k["suite"] != "experimental"]
            cand = rel or cand
    if not cand:
        what = "suite" if spec in SUITES else "version"
        where = f" in {suite}" if suite else ""
        raise LabError(f"--kernel {spec}: no such {what}{where} for {arch} "
                       f"(scripts/kernel-lab list --arch {arch})")
    k = max(cand, key=lambda k: vercmp_key(k["version"]))
    return k, apt.fetch_kernel(k) if fetch else apt.image_path(k)


def cached_match(apt, spec, arch):
    """Offline: a cached image whose package version or upstream is spec."""
    for d in glob.glob(os.path.join(apt.root, "images", "*")):
        pkg, _, rest = os.path.basename(d).partition("_")
        ver, _, a = rest.rpartition("_")
        ver = ver.replace("%", ":")
        if a == arch and spec in (ver, ver.split("-")[0]) and \
                os.path.exists(os.path.join(d, "vmlinuz")):
            return dict(suite="?", version=ver, upstream=ver.split("-")[0],
                        abi="?", arch=arch, package=pkg, cached=True)
    return None


class lock:
    """One kernel-lab at a time updates and downloads (meson runs guests in
    parallel)."""

    def __init__(self, root):
        os.makedirs(root, exist_ok=True)
        self.path = os.path.join(root, "lock")

    def __enter__(self):
        import fcntl
        self.f = open(self.path, "w")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *a):
        self.f.close()
