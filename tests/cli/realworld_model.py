#!/usr/bin/env python3
"""The reference model realworld_graph.sh checks heapfmt-graph against.

Reads `heapfmt-export -r objects,roots,classes` on stdin and builds the
graph as heapfmt-graph is meant to: every object reaches its class's
object (when one class object has that name), weak references (a
Reference's referent) reach nothing, and a virtual root holds the objects
of every ROOT record.

  realworld_model.py unreachable   how many objects no root reaches
  realworld_model.py retained      "id retained" of every reachable object,
                                   from the dominator tree of the iterative
                                   algorithm of Cooper, Harvey and Kennedy
                                   (heapfmt-graph uses Semi-NCA: two methods,
                                   one answer)
"""
import json
import sys

ROOT = ""  # the virtual root; no object id is empty


def load(stream):
    objs, roots, ids = {}, [], {}
    for line in stream:
        d = json.loads(line)
        if d["record"] == "object":
            objs.setdefault(d["id"], d)
        elif d["record"] == "root":
            roots += d.get("refs", [])
        elif d["record"] == "class":
            ids.setdefault(d["name"], []).append(d["id"])
    roots = [r for r in dict.fromkeys(roots) if r in objs]

    def succ(i):
        if i == ROOT:
            return roots
        o = objs[i]
        labels = o.get("ref_labels") or []
        out = [t for k, t in enumerate(o.get("refs", []))
               if not (k < len(labels) and labels[k] and labels[k].get("weak"))]
        klass = ids.get(o["class"], [])
        if len(klass) == 1 and klass[0]:
            out.append(klass[0])
        return [t for t in dict.fromkeys(out) if t in objs]
    return objs, succ


def reverse_postorder(succ):
    """Every node the virtual root reaches, without recursion."""
    order, seen, stack = [], {ROOT}, [(ROOT, iter(succ(ROOT)))]
    while stack:
        node, it = stack[-1]
        for t in it:
            if t not in seen:
                seen.add(t)
                stack.append((t, iter(succ(t))))
                break
        else:
            stack.pop()
            order.append(node)
    order.reverse()
    return order


def dominators(order, succ):
    rpo = {n: k for k, n in enumerate(order)}
    preds = {n: [] for n in order}
    for n in order:
        for t in succ(n):
            preds[t].append(n)
    idom = {ROOT: ROOT}

    def meet(a, b):
        while a != b:
            while rpo[a] > rpo[b]:
                a = idom[a]
            while rpo[b] > rpo[a]:
                b = idom[b]
        return a
    changed = True
    while changed:
        changed = False
        for n in order[1:]:
            done = [p for p in preds[n] if p in idom]
            new = done[0]
            for p in done[1:]:
                new = meet(p, new)
            if idom.get(n) != new:
                idom[n] = new
                changed = True
    return idom


def main():
    objs, succ = load(sys.stdin)
    order = reverse_postorder(succ)
    if sys.argv[1] == "unreachable":
        print(len(objs) - (len(order) - 1))
        return
    idom = dominators(order, succ)
    retained = {n: objs[n]["bytes"] for n in order[1:]}
    for n in reversed(order[1:]):
        if idom[n] != ROOT:
            retained[idom[n]] += retained[n]
    for n in order[1:]:
        print(n, retained[n])


if __name__ == "__main__":
    main()
