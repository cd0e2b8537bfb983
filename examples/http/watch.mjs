// A memorywire client in JavaScript that needs nothing but fetch (Node 20
// or a browser): put memories, search them, and follow a Watch that
// survives a dropped connection by resuming with Last-Event-ID
// (spec/v1/http-binding.md).
//
//   memorywire serve --http 127.0.0.1:8080 &
//   node examples/http/watch.mjs http://127.0.0.1:8080 acme
//
// It prints one JSON line per step. EventSource cannot send a POST body or
// the tenant header, so the event stream is read from fetch's body with the
// small parser below.

const [base = "http://127.0.0.1:8080", tenant = "acme"] = process.argv.slice(2);
const service = `${base}/memorywire.v1.MemoryService`;
const run = Math.random().toString(36).slice(2, 10);
let counter = 0;

function request(fields) {
  return { specversion: "1.0", operation_id: `op-${run}-${++counter}`, ...fields };
}

function headers(extra = {}) {
  return { "content-type": "application/json", "memorywire-tenant": tenant, ...extra };
}

// One unary call: the response document, or an Error thrown with its code and reason.
async function call(method, fields) {
  const response = await fetch(`${service}/${method}`, {
    method: "POST", headers: headers(), body: JSON.stringify(request(fields)),
  });
  const body = await response.json();
  if (!response.ok) {
    const error = new Error(`${method}: ${response.status} ${body.reason}: ${body.message}`);
    Object.assign(error, body);
    throw error;
  }
  return body;
}

// The events of a text/event-stream body, as {event, id, data} objects;
// comment lines (heartbeats) are skipped.
async function* events(body) {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = { event: "message", data: [] };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (event.data.length) {
          yield { event: event.event, id: event.id, data: JSON.parse(event.data.join("\n")) };
        }
        event = { event: "message", data: [] };
        continue;
      }
      if (line.startsWith(":")) continue; // a heartbeat
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (name === "data") event.data.push(value);
      else if (name === "event") event.event = value;
      else if (name === "id" && !value.includes("\0")) event.id = value;
    }
  }
}

// A Watch that yields change events; `lastEventId` resumes after that event.
async function* watch(fields, { lastEventId, signal } = {}) {
  const response = await fetch(`${service}/Watch`, {
    method: "POST", signal, body: JSON.stringify(request(fields)),
    headers: headers({ accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) }),
  });
  if (!response.ok) {
    const body = await response.json();
    throw Object.assign(new Error(`Watch: ${response.status} ${body.reason}: ${body.message}`), body);
  }
  for await (const e of events(response.body)) {
    if (e.event === "error") throw Object.assign(new Error(`Watch: ${e.data.reason}`), e.data);
    if (e.event === "end") return;
    yield e;
  }
}

function print(step, value) {
  console.log(JSON.stringify({ step, ...value }));
}

const fact = (id, text) => ({ record: { id, kind: "fact", fact: { text } } });

const put = await call("Put", { items: [fact("seat", "The user prefers window seats."),
                                         fact("meal", "The user is vegetarian.")] });
print("put", { statuses: put.results.map((r) => r.status) });

const found = await call("Search", { text: "window seat", limit: 3 });
print("search", { ids: found.hits.map((h) => h.record.id) });

// Watch from the start, and drop the connection after the first event.
const controller = new AbortController();
let last;
for await (const e of watch({ from_start: true }, { signal: controller.signal })) {
  last = e.id;
  print("watched", { id: e.data.event.record.id, type: e.data.event.type });
  break; // leaving the loop cancels the body
}
controller.abort(); // and this closes the connection, as a dropped network would

// A change while nobody watches, then the resumed watch: nothing missed, nothing repeated.
await call("Put", { items: [fact("lang", "The user speaks Portuguese.")] });
for await (const e of watch({ max_events: 2 }, { lastEventId: last })) {
  print("resumed", { id: e.data.event.record.id, type: e.data.event.type });
}
print("done", {});
