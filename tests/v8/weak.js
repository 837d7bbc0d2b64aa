// weak.js -- a V8 heap with an object held both strongly and weakly, for
// tests/cli/graph_weak.sh:
//   node weak.js OUT.heapsnapshot
// `deep.a.b.c.x` holds an Item (four references from the global object);
// `weakref`, a WeakRef made in an earlier task than the snapshot (so that
// V8's keep-alive set of the current task no longer holds its target),
// reaches the same Item in two. The Item holds a 100 KB string.
'use strict';
const v8 = require('v8');

class Item {
  constructor() {
    this.payload = 'p'.repeat(100000) + Math.random();
  }
}
class Holder {}

globalThis.deep = new Holder();
globalThis.deep.a = { b: { c: { x: new Item() } } };
globalThis.weakref = new WeakRef(globalThis.deep.a.b.c.x);
setTimeout(() => v8.writeHeapSnapshot(process.argv[2]), 20);
