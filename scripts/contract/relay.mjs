// A TCP relay for the contract's 503 corpus (run.sh): it forwards every connection on
// 127.0.0.1:LISTEN_PORT to TARGET_HOST:TARGET_PORT. Killing it cuts the database away from the
// service behind it: the relayed connections break and new ones are refused.
//
// usage: node relay.mjs LISTEN_PORT TARGET_HOST TARGET_PORT
import net from "node:net";

const [listenPort, host, port] = process.argv.slice(2);
if (!port) {
  console.error("usage: node relay.mjs LISTEN_PORT TARGET_HOST TARGET_PORT");
  process.exit(2);
}
net
  .createServer((client) => {
    const upstream = net.connect(Number(port), host);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
  })
  .listen(Number(listenPort), "127.0.0.1", () => console.log("listening")); // run.sh waits for this line
