"""mosquitto and PostgreSQL from Debian's packages as local services in a project folder (no systemd).

``make club``, the tests and the benchmark use these. :class:`LocalBroker` writes the project's
``deploy/club`` configuration with this room's ACL, a password file (``mosquitto_passwd``) and a TLS
certificate authority and server certificate (``openssl``, made at set-up time), then runs
``mosquitto -c``. :class:`LocalPostgres` makes a cluster with ``initdb`` and runs it with ``pg_ctl``
(as the ``postgres`` user when run as root: PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "club"


class ServiceError(RuntimeError):
    """A local service could not be set up or started (the message says which, in one line)."""


class ServiceMissing(ServiceError):
    """A Debian package the club needs is not installed."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout:.0f} s")


def _run(cmd: list[str], **kw: object) -> None:
    got = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)  # type: ignore[call-overload]
    if got.returncode != 0:
        program = Path(next(c for c in cmd if c.startswith("/") or c[0].isalpha() and c != "runuser")).name
        said = (got.stderr.strip().splitlines() or ["no message"])[-1]
        raise ServiceError(f"{program} failed ({said})")


# ---------------------------------------------------------------------------------------- mosquitto
def _which(name: str) -> str | None:
    """A program on the PATH or in /usr/sbin (where Debian puts mosquitto, off a user's PATH)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin")


def make_certs(folder: Path) -> Path:
    """A CA and a server certificate for 127.0.0.1/localhost (EC keys: quick). Returns the CA file."""
    folder.mkdir(parents=True, exist_ok=True)
    ca, key = folder / "ca.crt", folder / "ca.key"
    if (folder / "server.crt").exists():
        return ca
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _run(["openssl", "req", "-x509", *ec, "-keyout", str(key), "-out", str(ca), "-days", "3650",
          "-subj", "/CN=hongsi club CA"])
    _run(["openssl", "req", *ec, "-keyout", str(folder / "server.key"), "-out", str(folder / "server.csr"),
          "-subj", "/CN=localhost"])
    ext = folder / "san.ext"
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _run(["openssl", "x509", "-req", "-in", str(folder / "server.csr"), "-CA", str(ca), "-CAkey", str(key),
          "-CAcreateserial", "-out", str(folder / "server.crt"), "-days", "3650", "-extfile", str(ext)])
    return ca


def write_acl(path: Path, room: str) -> None:
    """The project's ACL (``deploy/club/acl.template``) for ``room``."""
    path.write_text((DEPLOY / "acl.template").read_text().replace("{room}", room))


def write_passwords(path: Path, users: dict[str, str]) -> None:
    """A mosquitto password file (hashed by ``mosquitto_passwd``) for ``users``."""
    path.write_text("")
    for name, password in users.items():
        _run([str(_which("mosquitto_passwd")), "-b", str(path), name, password])
    path.chmod(0o600)


class LocalBroker:
    """A mosquitto on 127.0.0.1:``port`` with TLS, passwords and the room's ACL, in ``folder``."""

    def __init__(self, folder: Path, room: str, users: dict[str, str], port: int | None = None,
                 plain_port: int | None = None):
        if _which("mosquitto") is None or _which("mosquitto_passwd") is None:
            raise ServiceMissing("mosquitto is not installed (apt-get install mosquitto)")
        if shutil.which("openssl") is None:
            raise ServiceMissing("openssl is not installed (apt-get install openssl)")
        self.folder, self.room, self.users = Path(folder), room, users
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.folder.mkdir(parents=True, exist_ok=True)
        self.ca = make_certs(self.folder / "tls")
        write_acl(self.folder / "acl", room)
        write_passwords(self.folder / "passwd", users)
        (self.folder / "data").mkdir(exist_ok=True)
        conf = (DEPLOY / "mosquitto.conf.template").read_text().format(
            port=self.port, dir=self.folder, user=pwd.getpwuid(os.getuid()).pw_name)
        (self.folder / "mosquitto.conf").write_text(conf)

    def url(self, table: str) -> str:
        return f"mqtts://{table}:{self.users[table]}@127.0.0.1:{self.port}/{self.room}/{table}?ca={self.ca}"

    def start(self) -> LocalBroker:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                raise ServiceError(f"port {self.port} is taken: another broker runs there")
        except OSError:
            pass
        log = open(self.folder / "mosquitto.log", "ab")
        self.proc = subprocess.Popen([str(_which("mosquitto")), "-c", str(self.folder / "mosquitto.conf")],
                                     stdout=log, stderr=log, start_new_session=True)
        log.close()
        wait_port(self.port)
        return self

    def kill(self) -> None:
        """SIGKILL: what a power cut does to the broker."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()
            self.proc = None


# ---------------------------------------------------------------------------------------- PostgreSQL
def pg_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    if not found:
        raise ServiceMissing("PostgreSQL is not installed (apt-get install postgresql)")
    return found[-1].parent


class LocalPostgres:
    """A PostgreSQL cluster in ``folder`` on 127.0.0.1:``port``; user ``club`` with a generated password."""

    def __init__(self, folder: Path, port: int | None = None, *, fast: bool = False):
        """``fast``: no fsync (tests only: a power cut could lose what was stored)."""
        self.fast = fast
        self.bin = pg_bin()
        self.folder = Path(folder)
        self.port = port or free_port()
        self.data = self.folder / "data"
        self._as: list[str] = []
        if os.getuid() == 0:   # PostgreSQL will not run as root
            self._as = ["runuser", "-u", "postgres", "--"]
        self.folder.mkdir(parents=True, exist_ok=True)
        secret = self.folder / "password"
        if not secret.exists():
            secret.write_text(secrets.token_urlsafe(18))
            secret.chmod(0o600)
        self.password = secret.read_text().strip()
        if not (self.data / "PG_VERSION").exists():
            self._initdb()

    def _own(self, path: Path) -> None:
        if self._as:
            shutil.chown(path, "postgres", "postgres")

    def _initdb(self) -> None:
        self.folder.chmod(0o755)
        pwfile = self.folder / "pwfile"
        pwfile.write_text(self.password + "\n")
        self._own(pwfile)
        self.data.mkdir(mode=0o700, exist_ok=True)
        self._own(self.data)
        try:
            _run([*self._as, str(self.bin / "initdb"), "-D", str(self.data), "-U", "club", "-E", "UTF8",
                  "--auth-local=scram-sha-256", "--auth-host=scram-sha-256", f"--pwfile={pwfile}",
                  "--no-sync"], cwd="/")
        finally:
            pwfile.unlink(missing_ok=True)

    @property
    def dsn(self) -> str:
        return f"postgresql://club:{self.password}@127.0.0.1:{self.port}/postgres"

    def start(self) -> LocalPostgres:
        log = self.folder / "postgres.log"
        if not log.exists():
            log.touch()
            self._own(log)
        if self.running():
            return self
        opts = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.data}" + (" -c fsync=off" if self.fast else "")
        _run([*self._as, str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l", str(log),
              "-w", "-t", "30", "start"], cwd="/")
        return self

    def running(self) -> bool:
        return subprocess.run([*self._as, str(self.bin / "pg_ctl"), "-D", str(self.data), "status"], cwd="/",
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0

    def stop(self, mode: str = "fast") -> None:
        subprocess.run([*self._as, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop"],
                       cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
