import { createServer, type Server, Socket } from "node:net";

/**
 * A TCP proxy on 127.0.0.1 in the test's own process, in front of a real
 * server, for fault injection that touches nobody else's server: `cut()` is
 * the server dying (every open connection is reset), `freeze()` a network
 * path that drops packets without closing anything. Connections opened later
 * are forwarded normally, so a retry finds a healthy path.
 */
export interface TcpProxy {
  readonly port: number;
  /** Connections forwarded so far, open or not. */
  readonly opened: number;
  /** Resets every open connection, both sides. */
  cut(): void;
  /** Silently drops everything either side of every open connection sends from now on; nothing is closed. */
  freeze(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket; frozen: boolean }>();
  let opened = 0;
  const server: Server = createServer((client) => {
    opened++;
    const upstream = new Socket();
    const pair = { client, upstream, frozen: false };
    pairs.add(pair);
    const forget = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    // Forwarding by hand rather than pipe(): a frozen pair must drop data, not buffer it.
    // Backpressure is kept: a side whose peer cannot take more is paused until it drains.
    const forward = (from: Socket, to: Socket) => {
      from.on("data", (chunk) => {
        if (pair.frozen) return;
        if (!to.write(chunk)) {
          from.pause();
          to.once("drain", () => {
            if (!pair.frozen) from.resume();
          });
        }
      });
    };
    forward(client, upstream);
    forward(upstream, client);
    for (const socket of [client, upstream]) {
      socket.on("error", forget);
      socket.on("close", forget);
      socket.on("end", () => {
        if (!pair.frozen) forget();
      });
    }
    upstream.connect(target.port, target.host);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no TCP port");
  return {
    port: address.port,
    get opened() {
      return opened;
    },
    cut() {
      for (const { client, upstream } of [...pairs]) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      pairs.clear();
    },
    freeze() {
      for (const pair of pairs) {
        pair.frozen = true;
        // Reading on keeps the sender's buffers empty, as a path that loses packets would.
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `url` with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = "127.0.0.1";
  parsed.port = String(proxy.port);
  return parsed.toString();
}
