"""A throwaway PostgreSQL cluster for the tests and benchmarks of the
PostgreSQL store: Debian's server, installed where it is missing, run as an
unprivileged user in a temporary directory on a free loopback port, and
removed when it stops.

    with Cluster.start() as cluster:
        dsn = cluster.create_database("t1")   # postgresql://memorywire@127.0.0.1:PORT/t1

``python tools/postgres_cluster.py`` starts one and prints its address, for a
try by hand; it stops, and removes the cluster, on Ctrl-C or SIGTERM.

The server runs with ``fsync=off``: a test or benchmark never outlives the
cluster's machine, and what the tests kill is a memorywire replica, never
the database server.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing.Self is Python 3.11; the framework environments run 3.10 too
    from typing import Self

__all__ = ["Cluster", "PostgresUnavailable", "server_binaries"]

#: The database role the cluster is made with; it owns every database.
ROLE = "memorywire"
#: Debian's package of the server (and of initdb, pg_ctl, createdb).
PACKAGE = "postgresql"
#: The users a cluster may run as when this process is root, in order.
UNPRIVILEGED = ("postgres", "nobody")


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be had on this machine: the reason, and what to do."""


def _bin_dirs() -> list[Path]:
    found = [Path(p) for p in glob.glob("/usr/lib/postgresql/*/bin") if (Path(p) / "initdb").exists()]
    return sorted(found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)


def server_binaries(install: bool = True) -> Path:
    """The directory of initdb and pg_ctl: Debian's newest, installed with
    apt-get when there is none and this process is root (as in CI)."""
    dirs = _bin_dirs()
    if dirs:
        return dirs[0]
    on_path = shutil.which("initdb")
    if on_path:
        return Path(os.path.realpath(on_path)).parent
    if not install:
        raise PostgresUnavailable("no PostgreSQL server is installed (no initdb found)")
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise PostgresUnavailable(
            f"no PostgreSQL server is installed (no initdb found), and this process cannot install "
            f"one: install Debian's {PACKAGE} package (apt-get install {PACKAGE}) and run again")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "--no-install-recommends", PACKAGE]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise PostgresUnavailable(f"{' '.join(command)} failed ({done.returncode}): "
                                      f"{(done.stderr or done.stdout).strip()[-2000:]}")
    dirs = _bin_dirs()
    if not dirs:
        raise PostgresUnavailable(f"apt-get installed {PACKAGE}, but no initdb is in /usr/lib/postgresql")
    return dirs[0]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_as() -> pwd.struct_passwd | None:
    """The user the cluster runs as: this one, or an unprivileged one for
    root, which PostgreSQL refuses to run as."""
    if os.geteuid() != 0:
        return None
    for name in UNPRIVILEGED:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise PostgresUnavailable(f"running as root with none of the users {', '.join(UNPRIVILEGED)} "
                              "to run PostgreSQL as")


class Cluster:
    """A running throwaway cluster (``Cluster.start``)."""

    def __init__(self, directory: Path, bin_dir: Path, port: int, user: pwd.struct_passwd | None) -> None:
        self.directory = directory
        self.bin_dir = bin_dir
        self.port = port
        self.user = user
        self.host = "127.0.0.1"
        self._databases = 0

    @classmethod
    def start(cls, *, install: bool = True, timeout: float = 60.0) -> Cluster:
        """initdb a cluster in a new temporary directory and start it."""
        bin_dir = server_binaries(install)
        user = _run_as()
        directory = Path(tempfile.mkdtemp(prefix="memorywire-pg-"))
        if user is not None:
            os.chown(directory, user.pw_uid, user.pw_gid)
        cluster = cls(directory, bin_dir, _free_port(), user)
        try:
            cluster._run("initdb", "-D", str(directory / "data"), "-U", ROLE, "-A", "trust",
                         "-E", "UTF8", "--locale", "C", "--no-sync")
            options = (f"-p {cluster.port} -k {directory} -c listen_addresses={cluster.host} "
                       "-c fsync=off -c full_page_writes=off -c synchronous_commit=off "
                       "-c max_connections=300")
            cluster._run("pg_ctl", "-D", str(directory / "data"), "-o", options, "-l",
                         str(directory / "server.log"), "-w", "-t", str(int(timeout)), "start")
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin_dir / program), *args]
        user = self.user
        done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=self.directory,
                              user=user.pw_uid if user else None, group=user.pw_gid if user else None,
                              extra_groups=[] if user else None)
        if done.returncode != 0:
            log = self.directory / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PostgresUnavailable(f"{program} failed ({done.returncode}): "
                                      f"{(done.stderr or done.stdout).strip()[-2000:]}\n{tail}")

    def dsn(self, database: str = "postgres") -> str:
        """The connection URL of a database of the cluster."""
        return f"postgresql://{ROLE}@{self.host}:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """Create a new, empty database; return its connection URL. With
        psycopg, in SQL on a connection: a process that runs gRPC threads had
        better not fork (as running createdb would); createdb otherwise."""
        self._databases += 1
        name = name or f"memorywire_{os.getpid()}_{self._databases}"
        try:
            import psycopg
        except ImportError:
            self._run("createdb", "-h", self.host, "-p", str(self.port), "-U", ROLE, name)
        else:
            with psycopg.connect(self.dsn(), autocommit=True) as conn:
                conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
        return self.dsn(name)

    def stop(self) -> None:
        """Stop the server at once and remove its directory."""
        if (self.directory / "data" / "postmaster.pid").exists():
            try:
                self._run("pg_ctl", "-D", str(self.directory / "data"), "-m", "immediate", "-w", "stop")
            except PostgresUnavailable:
                pass
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    signal.signal(signal.SIGTERM, _interrupt)  # stopped by kill as by Ctrl-C: the cluster goes too
    try:
        cluster = Cluster.start()
    except PostgresUnavailable as e:
        print(f"postgres_cluster: {e}", file=sys.stderr)
        return 1
    with cluster:
        print(cluster.create_database("memorywire"), flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
