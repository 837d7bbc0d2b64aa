// devtools_diff.mjs -- Chrome DevTools' own Comparison of two V8 heap
// snapshots, computed by the DevTools front end that the installed
// Chromium ships, for tests/cli/import_v8.sh to check heapfmt-diff against.
//
//   node devtools_diff.mjs BASE.heapsnapshot CURRENT.heapsnapshot [PAK]
//
// Prints, per row of DevTools' Comparison view (a class key), a line
//   class <TAB> new_count <TAB> new_bytes <TAB> freed_count <TAB> freed_bytes
// then "totals" with the sums. Exit 77 when the front end cannot be found.
//
// The front end is not copied here: its heap snapshot worker and the two
// modules it needs (platform, the heap snapshot model) are read at run
// time from Chromium's resources.pak (PAK, default
// /usr/lib/chromium/resources.pak), found by what they export; the
// modules that only serve its user interface or host (i18n, text_utils,
// common, the platform's node runtime) are replaced by the few lines
// below. The snapshots are then loaded,
// compared and listed with the calls the Comparison view makes
// (HeapSnapshotDiffDataGrid: aggregatesForDiff, calculateSnapshotDiff).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {MessageChannel} from 'node:worker_threads';

const [baseFile, curFile, pakFile = '/usr/lib/chromium/resources.pak'] =
    process.argv.slice(2);
if (!curFile) {
  console.error('usage: devtools_diff.mjs BASE CURRENT [PAK]');
  process.exit(2);
}
function skip(why) {
  console.error(`devtools_diff: ${why}`);
  process.exit(77);
}
if (!fs.existsSync(pakFile)) skip(`${pakFile}: not found`);

// Promise.withResolvers arrived in Node 22; the front end uses it.
if (!Promise.withResolvers) {
  Promise.withResolvers = () => {
    let resolve, reject;
    const promise = new Promise((a, b) => { resolve = a; reject = b; });
    return {promise, resolve, reject};
  };
}

// Every resource of a version 5 pack: u32 version, u32 encoding, u16
// resources, u16 aliases, then (u16 id, u32 offset) entries; gzip or
// brotli (0x1e 0x9b and a 6-byte size) compressed, or plain.
function* resources(file) {
  const d = fs.readFileSync(file);
  if (d.readUInt32LE(0) !== 5) skip(`${file}: not a version 5 pack`);
  const n = d.readUInt16LE(8);
  for (let i = 0; i < n; i++) {
    const at = d.readUInt32LE(12 + 6 * i + 2);
    const end = d.readUInt32LE(12 + 6 * (i + 1) + 2);
    let b = d.subarray(at, end);
    try {
      if (b[0] === 0x1f && b[1] === 0x8b) b = zlib.gunzipSync(b);
      else if (b[0] === 0x1e && b[1] === 0x9b) b = zlib.brotliDecompressSync(b.subarray(8));
    } catch {
      continue;
    }
    yield b.toString('utf8');
  }
}

const wanted = {
  'entrypoints/heap_snapshot_worker/heap_snapshot_worker.js':
      s => s.includes('calculateSnapshotDiff') && s.includes('as HeapSnapshotLoader'),
  'models/heap_snapshot/heap_snapshot.js':
      s => s.includes('AggregateForDiff:()=>') && s.includes('export{'),
  'core/platform/platform.js':
      s => s.includes('TypedArrayUtilities') && s.includes('HostRuntime') &&
          /export\{[^}]*as TypedArrayUtilities/.test(s),
};
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'devtools-'));
process.on('exit', () => fs.rmSync(dir, {recursive: true, force: true}));
const found = {};
for (const text of resources(pakFile)) {
  for (const [name, test] of Object.entries(wanted)) {
    if (!found[name] && test(text)) found[name] = text;
  }
}
for (const name of Object.keys(wanted)) {
  if (!found[name]) skip(`${pakFile}: no DevTools module ${name}`);
  fs.mkdirSync(path.dirname(path.join(dir, name)), {recursive: true});
  fs.writeFileSync(path.join(dir, name), found[name]);
}
const stubs = {
  // the platform module asks for its host's runtime (workers, timers),
  // which nothing here uses
  'core/platform/node/node.js': 'export const HostRuntime = {HOST_RUNTIME: {}};\n',
  // progress messages only
  'core/i18n/i18n.js': 'export const i18n = {serializeUIString: (s, v) => ' +
      'JSON.stringify({string: s, values: v})};\n',
  // the base class of the proxy the user interface talks through
  'core/common/common.js': 'export const ObjectWrapper = {ObjectWrapper: class {}};\n',
  // the loader's one use: the "snapshot" object's JSON text
  'core/text_utils/text_utils.js': `
class BalancedJSONTokenizer {
  constructor(callback) { this.callback = callback; this.buf = ''; this.rest = ''; this.done = false; }
  write(chunk) {
    if (this.done) { this.rest += chunk; return; }
    const from = this.buf.length;
    this.buf += chunk;
    let depth = this.depth || 0, str = this.str || false, esc = this.esc || false;
    for (let i = from; i < this.buf.length; i++) {
      const c = this.buf[i];
      if (str) { if (esc) esc = false; else if (c === '\\\\') esc = true; else if (c === '"') str = false; continue; }
      if (c === '"') str = true;
      else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) {
        this.done = true;
        this.rest = this.buf.slice(i + 1);
        this.callback(this.buf.slice(this.buf.indexOf('{'), i + 1));
        return;
      }
    }
    this.depth = depth; this.str = str; this.esc = esc;
  }
  remainder() { return this.rest; }
}
export const TextUtils = {BalancedJSONTokenizer};
`,
};
for (const [name, text] of Object.entries(stubs)) {
  fs.mkdirSync(path.dirname(path.join(dir, name)), {recursive: true});
  fs.writeFileSync(path.join(dir, name), text);
}

const W = await import(path.join(dir, 'entrypoints/heap_snapshot_worker/heap_snapshot_worker.js'));
const dispatcher = {sendEvent() {}};

async function load(file) {
  const loader = new W.HeapSnapshotLoader.HeapSnapshotLoader(dispatcher);
  const text = fs.readFileSync(file, 'utf8');
  for (let i = 0; i < text.length; i += 1 << 20) loader.write(text.slice(i, i + (1 << 20)));
  loader.close();
  const {port1, port2} = new MessageChannel();
  new W.HeapSnapshot.SecondaryInitManager(port2);
  const snapshot = await loader.buildSnapshot(port1);
  port1.close();
  port2.close();
  return snapshot;
}

const base = await load(baseFile);
const current = await load(curFile);
const forDiff = base.aggregatesForDiff(current.interfaceDefinitions());
const diff = current.calculateSnapshotDiff(1, forDiff);
const t = {new_count: 0, new_bytes: 0, freed_count: 0, freed_bytes: 0};
const rows = [];
for (const key of Object.keys(diff)) {
  const d = diff[key];
  rows.push([d.name, d.addedCount, d.addedSize, d.removedCount, d.removedSize]);
  t.new_count += d.addedCount;
  t.new_bytes += d.addedSize;
  t.freed_count += d.removedCount;
  t.freed_bytes += d.removedSize;
}
rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
for (const r of rows) console.log(r.join('\t'));
console.log(['totals', t.new_count, t.new_bytes, t.freed_count, t.freed_bytes].join('\t'));
