// gen_heapsnapshot.js -- a V8 heap snapshot of a given size for make bench
// (heapfmt-import's V8 case): a Node heap shaped like a small service --
// records with a few properties, strings, arrays and maps -- grown until
// the snapshot is about --size MB, written with v8.writeHeapSnapshot().
//   node bench/gen_heapsnapshot.js --size 100 -o heap.heapsnapshot
'use strict';
const v8 = require('v8');
const fs = require('fs');

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const mb = Number(opt('--size', '100'));
const out = opt('-o', 'heap.heapsnapshot');

class Session {
  constructor(i) {
    this.id = i;
    this.user = 'user-' + (i % 5000);
    this.tags = ['t' + (i % 7), 'u' + (i % 11)];
    this.meta = { created: i * 1000, hits: i % 97 };
  }
}
class Request {
  constructor(s, i) {
    this.session = s;
    this.path = '/api/v1/items/' + i;
    this.headers = new Map([['accept', 'json'], ['x-id', String(i)]]);
  }
}
globalThis.sessions = [];
globalThis.requests = [];
// about 67 bytes of snapshot per object, 11 objects per session (Node 20)
const n = Math.ceil((mb * 1e6) / (67 * 11));
for (let i = 0; i < n; i++) {
  const s = new Session(i);
  sessions.push(s);
  if (i % 2 === 0) requests.push(new Request(s, i));
}
v8.writeHeapSnapshot(out);
console.log(out, fs.statSync(out).size);
