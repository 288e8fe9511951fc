/**
 * A TCP proxy in front of the server, for breaking connections on purpose:
 * it passes every connection through, records the head of each request,
 * and `cut()` drops every connection open at that moment (what a client
 * sees when its network breaks mid-stream).
 */

import net from "node:net";

export class CuttingProxy {
  readonly requests: string[] = [];
  private readonly open = new Set<net.Socket>();

  private constructor(
    private readonly upstream: { host: string; port: number },
    private readonly server: net.Server,
  ) {}

  static async start(upstreamUrl: string): Promise<CuttingProxy> {
    const url = new URL(upstreamUrl);
    const server = net.createServer();
    const proxy = new CuttingProxy({ host: url.hostname, port: Number(url.port) }, server);
    server.on("connection", (socket) => proxy.serve(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    const address = this.server.address() as net.AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  /** Drop every connection open now. */
  cut(): void {
    for (const s of this.open) s.destroy();
    this.open.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(client: net.Socket): void {
    const upstream = net.connect(this.upstream);
    for (const s of [client, upstream]) {
      this.open.add(s);
      s.on("close", () => {
        this.open.delete(s);
        client.destroy();
        upstream.destroy();
      });
      s.on("error", () => s.destroy());
    }
    // One request per head (keep-alive connections carry several).
    let head = "";
    client.on("data", (data: Buffer) => {
      head += data.toString("latin1");
      for (let end = head.indexOf("\r\n\r\n"); end >= 0; end = head.indexOf("\r\n\r\n")) {
        this.requests.push(head.slice(0, end) + "\r\n");
        head = head.slice(end + 4);
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
