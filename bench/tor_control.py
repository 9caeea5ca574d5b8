#!/usr/bin/python3
"""A stock tor process's ControlPort, as experiments and tests read it (issue 21): cookie authentication,
GETINFO of one-line and multi-line values. Standard library only, so the system tests use it without stem.
"""

import os
import socket


class Control:
    """A stock tor process's ControlPort (a record of network.json: its address, ports.control and data_dir),
    authenticated with its cookie; one connection, kept until close()."""

    def __init__(self, proc, sock=None, at=None):
        """`sock` and `at` (address, port): a socket made elsewhere (in the process's namespace) and where to
        connect it; by default the record's address and ports.control."""
        with open(os.path.join(proc["data_dir"], "control_auth_cookie"), "rb") as f:
            cookie = f.read().hex()
        if sock is None:
            self.sock = socket.create_connection((proc.get("address", "127.0.0.1"), proc["ports"]["control"]),
                                                 timeout=5)
        else:
            self.sock = sock
            self.sock.settimeout(5)
            self.sock.connect(at)
        self.buf = b""
        if not self.command("AUTHENTICATE %s" % cookie)[-1].startswith("250"):
            raise OSError("%s: AUTHENTICATE refused" % proc["name"])

    def command(self, line):
        """The reply's lines, the last one ("250 OK" or an error) included."""
        self.sock.sendall(line.encode() + b"\r\n")
        lines = []
        while True:
            while b"\r\n" not in self.buf:
                chunk = self.sock.recv(4096)
                if not chunk:
                    raise OSError("ControlPort closed")
                self.buf += chunk
            text, self.buf = self.buf.split(b"\r\n", 1)
            text = text.decode("utf-8", "replace")
            lines.append(text)
            if len(lines) > 1 and lines[-2].startswith("250+") and text != ".":
                lines[-2:] = [lines[-2] + "\n" + text]  # a data block: joined to its "250+KEY=" line
                continue
            if len(lines) > 1 and lines[-2].startswith("250+") and text == ".":
                lines[-2:] = [lines[-2].replace("250+", "250-", 1) + "\n"]  # the block's end
                continue
            if len(text) >= 4 and text[3] == " ":
                return lines

    def getinfo(self, key):
        """A GETINFO value; a multi-line one as its lines joined by newlines (a newline first)."""
        for line in self.command("GETINFO %s" % key):
            if line.startswith("250-%s=" % key):
                return line.split("=", 1)[1]
        return None

    def close(self):
        self.sock.close()
