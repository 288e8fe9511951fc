"""A TCP proxy in front of the server, for breaking connections on purpose:
it passes every connection through, records the head of each request, and
`cut()` drops every connection open at that moment (what a client sees when
its network breaks mid-stream)."""

from __future__ import annotations

import socket
import threading


class CuttingProxy:
    def __init__(self, upstream: str) -> None:
        host, port = upstream.removeprefix("http://").rstrip("/").split(":")
        self._upstream = (host, int(port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self.requests: list[str] = []
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        """Drop every connection open now."""
        with self._lock:
            sockets, self._open = self._open, set()
        for s in sockets:
            _close(s)

    def close(self) -> None:
        self._listener.close()
        self.cut()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self._upstream, timeout=30)
        except OSError:
            _close(client)
            return
        with self._lock:
            self._open.update((client, upstream))
        threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
        self._pipe(upstream, client, False)

    def _pipe(self, source: socket.socket, sink: socket.socket, requests: bool) -> None:
        head = b""
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if requests:
                    # One request per head (keep-alive connections carry several).
                    head += data
                    while b"\r\n\r\n" in head:
                        one, head = head.split(b"\r\n\r\n", 1)
                        with self._lock:
                            self.requests.append(one.decode("latin-1") + "\r\n")
                sink.sendall(data)
        except OSError:
            pass
        finally:
            _close(source)
            _close(sink)


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()
