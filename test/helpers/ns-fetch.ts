// Run inside a namespace (`ip netns exec <ns> node ns-fetch.js`): reads one request as JSON
// on stdin, performs it, prints {status, text} as JSON. The daemon under test listens there.
async function main(): Promise<void> {
  let raw = '';
  for await (const chunk of process.stdin) raw += chunk;
  const req = JSON.parse(raw) as { url: string; method: string; headers: Record<string, string>; body?: string };
  const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body });
  process.stdout.write(JSON.stringify({ status: res.status, text: await res.text() }));
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ status: 0, text: String(err?.cause?.code ?? err) }));
});
