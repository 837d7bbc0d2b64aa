// leaky.js -- a Node program with known objects for tests/cli/import_v8.sh:
// 1000 Leaky instances kept in the global array `keep`, a Map of 50
// entries in the global `table`; snapshot BEFORE, then 500 more Leaky,
// snapshot AFTER.
'use strict';
const v8 = require('v8');

class Leaky {
  constructor(i) { this.i = i; }
}
globalThis.keep = [];
for (let i = 0; i < 1000; i++) keep.push(new Leaky(i));
globalThis.table = new Map();
for (let i = 0; i < 50; i++) table.set('k' + i, { n: i });
v8.writeHeapSnapshot(process.argv[2]);
for (let i = 0; i < 500; i++) keep.push(new Leaky(1000 + i));
v8.writeHeapSnapshot(process.argv[3]);
