// The `eventsource` package, unmodified, follows a run's events through a proxy that
// drops the first connection after a few events: the package reconnects on its own
// with Last-Event-ID, and this prints what it received, for the test to check that
// every event came exactly once.
//   AGENTD_PORT, TOKEN, RUN_ID: the run to follow; DROP_AFTER: events before the drop.
import net from 'node:net';
import { EventSource } from 'eventsource';

const target = Number(process.env.AGENTD_PORT);
const dropAfter = Number(process.env.DROP_AFTER || 3);
const connections = [];

// Forwards each connection to agentd; the first is cut once `dropAfter` events passed.
const proxy = net.createServer((client) => {
  const index = connections.length;
  const seen = { lastEventId: null, events: 0 };
  connections.push(seen);
  const upstream = net.connect(target, '127.0.0.1');
  let head = '';
  client.on('data', (bytes) => {
    head += bytes.toString('latin1');
    const id = /\r\nlast-event-id: *([^\r]*)/i.exec(head);
    if (id) seen.lastEventId = id[1];
    upstream.write(bytes);
  });
  // The first connection is cut right after its `dropAfter`-th event, wherever the reads
  // fall: a client that connects late gets a finished run's events in one read.
  upstream.on('data', (bytes) => {
    const text = bytes.toString('latin1');
    for (let at = text.indexOf('\n\n'); at >= 0; at = text.indexOf('\n\n', at + 2)) {
      seen.events += 1;
      if (index === 0 && seen.events === dropAfter) {
        client.write(bytes.subarray(0, at + 2));
        client.destroy();
        upstream.destroy();
        return;
      }
    }
    client.write(bytes);
  });
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on('error', end);
  upstream.on('error', end);
  client.on('close', end);
  upstream.on('close', end);
});

proxy.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${proxy.address().port}/runs/${process.env.RUN_ID}/events`;
  const received = [];
  const source = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        headers: { ...init.headers, Authorization: `Bearer ${process.env.TOKEN}` },
      }),
  });
  const timer = setTimeout(() => finish('timed out'), 20000);
  function finish(error) {
    clearTimeout(timer);
    source.close();
    proxy.close();
    console.log(JSON.stringify({ error, received, connections }));
    process.exit(0);
  }
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    received.push({ id: message.lastEventId, seq: event.seq, type: event.type });
    if (event.type === 'done') finish(null);
  };
});
