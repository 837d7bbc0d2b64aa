// snapshot.js -- what DevTools computes from a .heapsnapshot, straight from
// its JSON (the independent model of tests/cli/import_v8.sh; class names
// and shallow sizes as heapfmt-import gives them, which the manual says
// where they differ from DevTools'):
//   node snapshot.js histo SNAP HISTO_TSV   compares `histo -f tsv` of the
//       imported dump with the Summary view: objects and self sizes per
//       class, for every class; prints the mismatches, exits 1 on one
//   node snapshot.js new BEFORE AFTER CLASS  the Comparison view: nodes of
//       CLASS in AFTER whose id is not in BEFORE
//   node snapshot.js first SNAP CLASS        the id of an object of CLASS
'use strict';
const fs = require('fs');

function load(file) {
  const s = JSON.parse(fs.readFileSync(file, 'utf8'));
  const meta = s.snapshot.meta;
  const nf = meta.node_fields.length;
  const f = (name) => meta.node_fields.indexOf(name);
  const types = meta.node_types[f('type')];
  const ef = meta.edge_fields.length;
  const etypes = meta.edge_types[meta.edge_fields.indexOf('type')];
  const nodes = [];
  let e = 0;
  for (let i = 0; i < s.nodes.length; i += nf) {
    const type = types[s.nodes[i + f('type')]];
    const name = s.strings[s.nodes[i + f('name')]];
    const edges = [];
    for (let k = 0; k < s.nodes[i + f('edge_count')]; k++, e += ef)
      edges.push({ weak: etypes[s.edges[e]] === 'weak', to: s.edges[e + 2] / nf });
    nodes.push({
      id: s.nodes[i + f('id')],
      self: s.nodes[i + f('self_size')],
      type,
      name,
      edges,
      // DevTools' HeapSnapshotNode.className()
      cls: type === 'object' || type === 'native' ? name
        : type === 'hidden' ? '(system)'
        : type === 'code' ? '(compiled code)'
        : '(' + type + ')',
    });
  }
  // DevTools' shallow sizes: a hidden or array node (or a native "system /
  // ExternalStringData") reached by strong edges from one object only
  // (directly or through such nodes) gives its size to that object;
  // unless the root holds synthetic nodes only
  const owned = (n) => n.type === 'hidden' || n.type === 'array' ||
    (n.type === 'native' && n.name === 'system / ExternalStringData');
  if (nodes[0].edges.some((x) => nodes[x.to].type !== 'synthetic')) {
    const owner = nodes.map((n, i) => (owned(n) ? undefined : i));
    const work = owner.flatMap((o, i) => (o === undefined ? [] : [i]));
    while (work.length) {
      const i = work.pop();
      for (const x of nodes[i].edges) {
        if (x.weak) continue;
        const o = owner[x.to];
        if (o === undefined) { owner[x.to] = owner[i]; work.push(x.to); }
        else if (o !== x.to && o !== owner[i] && o !== 'shared') {
          owner[x.to] = 'shared';
          work.push(x.to);
        }
      }
    }
    owner.forEach((o, i) => {
      if (typeof o !== 'number' || o === i || o === 0 || nodes[o].type === 'synthetic') return;
      nodes[o].self += nodes[i].self;
      nodes[i].self = 0;
    });
  }
  return nodes;
}

const [cmd, a, b, c] = process.argv.slice(2);
if (cmd === 'histo') {
  const want = new Map();
  for (const n of load(a)) {
    const r = want.get(n.cls) || { count: 0, bytes: 0 };
    r.count++;
    r.bytes += n.self;
    want.set(n.cls, r);
  }
  // histo escapes unusual names; compare the plain ones by name and
  // every class through the totals
  const plain = (s) => /^[\x20-\x5b\x5d-\x7e]+$/.test(s);
  let bad = 0, compared = 0, total = { count: 0, bytes: 0 }, got = { count: 0, bytes: 0 };
  const lines = fs.readFileSync(b, 'utf8').trim().split('\n').slice(1);
  const seen = new Set();
  for (const line of lines) {
    const [count, bytes, ...rest] = line.split('\t');
    const cls = rest.join('\t');
    got.count += Number(count);
    got.bytes += Number(bytes);
    if (!plain(cls)) continue;
    seen.add(cls);
    const w = want.get(cls);
    compared++;
    if (!w || w.count !== Number(count) || w.bytes !== Number(bytes)) {
      console.log(`${cls}: histo ${count} ${bytes}, snapshot ${w ? w.count + ' ' + w.bytes : 'none'}`);
      bad++;
    }
  }
  for (const [cls, w] of want) {
    total.count += w.count;
    total.bytes += w.bytes;
    if (plain(cls) && !seen.has(cls)) {
      console.log(`${cls}: not in histo, snapshot ${w.count} ${w.bytes}`);
      bad++;
    }
  }
  if (total.count !== got.count || total.bytes !== got.bytes) {
    console.log(`totals: histo ${got.count} ${got.bytes}, snapshot ${total.count} ${total.bytes}`);
    bad++;
  }
  console.log(`compared ${compared} classes`);
  process.exit(bad ? 1 : 0);
} else if (cmd === 'new') {
  const before = new Set(load(a).map((n) => n.id));
  console.log(load(b).filter((n) => n.cls === c && !before.has(n.id)).length);
} else if (cmd === 'first') {
  console.log(load(a).find((n) => n.cls === b).id);
}
