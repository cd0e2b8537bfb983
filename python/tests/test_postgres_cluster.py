"""The throwaway PostgreSQL cluster of the tests (tools/postgres_cluster.py)
runs, as an unprivileged user, and gives databases of their own."""

from __future__ import annotations

import os
import subprocess

from postgres_cluster import Cluster


def test_a_cluster_gives_separate_databases(postgres_cluster: Cluster) -> None:
    first, second = postgres_cluster.create_database(), postgres_cluster.create_database()
    assert first != second
    psql = str(postgres_cluster.bin_dir / "psql")
    for dsn in (first, second):
        done = subprocess.run([psql, dsn, "-Atc", "SELECT current_database(), current_setting('server_version_num')"],
                              capture_output=True, text=True, check=True)
        name, version = done.stdout.strip().split("|")
        assert dsn.endswith("/" + name) and int(version) >= 130000


def test_the_cluster_does_not_run_as_root(postgres_cluster: Cluster) -> None:
    pid = int((postgres_cluster.directory / "data" / "postmaster.pid").read_text().split()[0])
    assert os.stat(f"/proc/{pid}").st_uid != 0
