"""A TCP proxy in front of the server that drops the first connection whose
request is for a run's events once it has passed on the first event of the
answer: what a client sees when its connection breaks mid-stream. Later
connections pass through whole. It records each request's head."""

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
        self._cut_done = False
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        client.settimeout(30)
        upstream = socket.create_connection(self._upstream, timeout=30)
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                data = client.recv(65536)
                if not data:
                    return
                head += data
            with self._lock:
                self.requests.append(head.decode("latin-1"))
                cut = "/events" in head.split(b"\r\n", 1)[0].decode("latin-1") and not self._cut_done
                self._cut_done = self._cut_done or cut
            upstream.sendall(head)
            if not cut:
                threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
                _pipe(upstream, client)
                return
            # The answer's head, then its body up to the end of the first
            # message (a blank line), then the connection is dropped.
            answer = b""
            while True:
                data = upstream.recv(65536)
                if not data:
                    break
                answer += data
                body_at = answer.find(b"\r\n\r\n")
                if body_at >= 0:
                    end = answer.find(b"\n\n", body_at + 4)
                    if end >= 0:
                        client.sendall(answer[: end + 2])
                        break
        except OSError:
            pass
        finally:
            for s in (client, upstream):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass
