// mini_snapshot.js -- a small V8 heap snapshot cut out of a real one, for
// the fuzz seeds (fuzz/corpus/fuzz_import, whose inputs stay under 16 KiB).
//
//   node mini_snapshot.js IN.heapsnapshot OUT.heapsnapshot [NODES]
//
// Keeps the real snapshot's meta, the first NODES nodes (default 200) met
// breadth-first from the synthetic root -- so the root, (GC roots) and
// its categories, the global object and what it holds -- with the edges
// among them, and the strings they use, renumbered: a real Node's layout
// and names in a few KiB.
'use strict';
const fs = require('fs');

const [, , input, output, count] = process.argv;
const max = Number(count || 200);
const snap = JSON.parse(fs.readFileSync(input, 'utf8'));
const meta = snap.snapshot.meta;
const nf = meta.node_fields.length;
const ef = meta.edge_fields.length;
const nEdges = meta.node_fields.indexOf('edge_count');
const nName = meta.node_fields.indexOf('name');
const eTo = meta.edge_fields.indexOf('to_node');
const eName = meta.edge_fields.indexOf('name_or_index');
const eType = meta.edge_fields.indexOf('type');
const indexTypes = new Set(['element', 'hidden'].map(
  (t) => meta.edge_types[0].indexOf(t)));

// each node's first edge
const nodes = snap.nodes;
const edges = snap.edges;
const nodeCount = nodes.length / nf;
const firstEdge = new Array(nodeCount);
for (let i = 0, e = 0; i < nodeCount; i++) {
  firstEdge[i] = e;
  e += nodes[i * nf + nEdges] * ef;
}

// breadth-first from the root
const keep = new Map([[0, 0]]);
const order = [0];
for (let q = 0; q < order.length && keep.size < max; q++) {
  const n = order[q];
  const end = firstEdge[n] + nodes[n * nf + nEdges] * ef;
  for (let e = firstEdge[n]; e < end && keep.size < max; e += ef) {
    const to = edges[e + eTo] / nf;
    if (!keep.has(to)) {
      keep.set(to, order.length);
      order.push(to);
    }
  }
}

const strings = [];
const stringOf = new Map();
const str = (i) => {
  if (!stringOf.has(i)) {
    stringOf.set(i, strings.length);
    strings.push(snap.strings[i]);
  }
  return stringOf.get(i);
};
const outNodes = [];
const outEdges = [];
for (const n of order) {
  const row = nodes.slice(n * nf, n * nf + nf);
  row[nName] = str(row[nName]);
  const end = firstEdge[n] + nodes[n * nf + nEdges] * ef;
  let kept = 0;
  for (let e = firstEdge[n]; e < end; e += ef) {
    const to = edges[e + eTo] / nf;
    if (!keep.has(to))
      continue;
    const edge = edges.slice(e, e + ef);
    edge[eTo] = keep.get(to) * nf;
    if (!indexTypes.has(edge[eType]))
      edge[eName] = str(edge[eName]);
    outEdges.push(...edge);
    kept++;
  }
  row[nEdges] = kept;
  outNodes.push(...row);
}

const out = {
  snapshot: { meta, node_count: order.length, edge_count: outEdges.length / ef },
  nodes: outNodes,
  edges: outEdges,
  strings,
};
fs.writeFileSync(output, JSON.stringify(out));
