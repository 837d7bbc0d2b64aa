"""chserver.py -- a throwaway ClickHouse server on loopback, for the tests
(tests/export/check_sql.py) and the bench (bench/bench.py).

    with ClickHouseServer(workdir) as ch:   # a free port on 127.0.0.1
        ch.client("--query", "SELECT 1")

Its config, data and logs live in workdir (the data is removed at the
start and at the end); it listens on 127.0.0.1 only, on a port the kernel
picked free; the server is stopped (by its pid) when the block ends. The config defines a cluster "heapfmt_test" of two shards,
both this server, whose default databases are shard1 and shard2: a
Distributed table over them is docs/fleet.md's "Scaling out" on one
machine.
"""

import os
import shutil
import signal
import socket
import subprocess
import time


def available():
    return (shutil.which("clickhouse-server") is not None and
            shutil.which("clickhouse-client") is not None)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ClickHouseServer:
    def __init__(self, workdir, memory_bytes=2_000_000_000):
        self.dir = os.path.abspath(workdir)
        self.memory = memory_bytes
        self.port = None
        self.proc = None

    def _config(self):
        d = self.dir
        for sub in ("data", "tmp", "user_files", "log"):
            # throwaway: a run never sees the tables of an earlier one
            shutil.rmtree(os.path.join(d, sub), ignore_errors=True)
            os.makedirs(os.path.join(d, sub))
        shard = ("<shard><replica><host>127.0.0.1</host><port>%d</port>"
                 "<default_database>%%s</default_database></replica></shard>"
                 % self.port)
        with open(os.path.join(d, "config.xml"), "w") as f:
            f.write("""<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{d}/log/server.log</log>
    <errorlog>{d}/log/error.log</errorlog><size>10M</size><count>1</count></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>{port}</tcp_port>
  <path>{d}/data/</path>
  <tmp_path>{d}/tmp/</tmp_path>
  <user_files_path>{d}/user_files/</user_files_path>
  <users_config>{d}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <max_concurrent_queries>16</max_concurrent_queries>
  <remote_servers><heapfmt_test>{s1}{s2}</heapfmt_test></remote_servers>
</yandex>
""".format(d=d, port=self.port, s1=shard % "shard1", s2=shard % "shard2"))
        with open(os.path.join(d, "users.xml"), "w") as f:
            f.write("""<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>{m}</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default></default></quotas>
</yandex>
""".format(m=self.memory))

    def start(self, timeout=60):
        self.port = free_port()
        self._config()
        log = open(os.path.join(self.dir, "log", "stdout"), "wb")
        self.proc = subprocess.Popen(
            ["clickhouse-server", "--config-file=" +
             os.path.join(self.dir, "config.xml")],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            r = subprocess.run(["clickhouse-client", "--host", "127.0.0.1",
                                "--port", str(self.port), "--query",
                                "SELECT 1"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                return self
            time.sleep(0.1)
        self.stop()
        tail = ""
        for name in ("error.log", "stdout"):
            try:
                with open(os.path.join(self.dir, "log", name), "rb") as f:
                    tail += f.read()[-1500:].decode("utf-8", "replace")
            except OSError:
                pass
        raise RuntimeError("clickhouse-server did not start: " + tail)

    def stop(self):
        """Stops the server and removes its data (the logs stay)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        for sub in ("data", "tmp"):
            shutil.rmtree(os.path.join(self.dir, sub), ignore_errors=True)

    def client(self, *args, database="default", stdin=None):
        """clickhouse-client with args; returns its stdout (text)."""
        cmd = ["clickhouse-client", "--host", "127.0.0.1", "--port",
               str(self.port), "--database", database] + list(args)
        r = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError("clickhouse-client %s: %s" % (
                " ".join(args)[:200], r.stderr.decode()[:600]))
        return r.stdout.decode()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False
