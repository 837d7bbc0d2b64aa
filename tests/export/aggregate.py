"""aggregate.py -- a small evaluator of MongoDB aggregation pipelines over
Python lists of documents, for testing the pipelines README.md gives
when no MongoDB server is at hand.

It implements the stages and operators those pipelines use, with
MongoDB's semantics as documented in the MongoDB manual (arrays matched
element-wise by query operators, missing fields, $sort on several keys,
$graphLookup's breadth-first search with maxDepth and depthField), and
raises NotImplementedError for anything else, so a pipeline that uses
more than this evaluator knows fails loudly instead of passing.

    run(pipeline, collection, collections={"edges": [...]})
"""

MISSING = object()


def get_path(doc, path):
    """A dotted field path; over arrays it collects the values (as MongoDB
    does for "$a.b")."""
    cur = doc
    for part in path.split("."):
        if isinstance(cur, list):
            vals = [get_path(x, part) for x in cur if isinstance(x, dict)]
            cur = [v for v in vals if v is not MISSING]
            continue
        if not isinstance(cur, dict) or part not in cur:
            return MISSING
        cur = cur[part]
    return cur


# ---- expressions ($group accumulators' arguments, $addFields, $project) ----

def expr(e, doc):
    if isinstance(e, str) and e.startswith("$"):
        v = get_path(doc, e[1:])
        return None if v is MISSING else v
    if isinstance(e, list):
        return [expr(x, doc) for x in e]
    if isinstance(e, dict):
        if len(e) == 1:
            (op, arg), = e.items()
            if op.startswith("$"):
                return operator(op, arg, doc)
        return {k: expr(v, doc) for k, v in e.items()}
    return e


def operator(op, arg, doc):
    if op == "$literal":
        return arg
    args = [expr(a, doc) for a in (arg if isinstance(arg, list) else [arg])]
    if op == "$eq":
        return args[0] == args[1]
    if op == "$ne":
        return args[0] != args[1]
    if op == "$cond":
        if isinstance(arg, dict):
            args = [expr(arg["if"], doc), expr(arg["then"], doc),
                    expr(arg["else"], doc)]
        return args[1] if args[0] else args[2]
    if op == "$subtract":
        return args[0] - args[1]
    if op == "$add":
        return sum(args)
    if op == "$size":
        return len(args[0])
    if op == "$ifNull":
        return args[1] if args[0] is None else args[0]
    raise NotImplementedError("expression operator " + op)


# ---- queries ($match, restrictSearchWithMatch) ----------------------------

def compare(a, b):
    """MongoDB's order for the types used here: numbers < strings."""
    def key(v):
        if v is None or v is MISSING:
            return (0, 0)
        if isinstance(v, (int, float)):
            return (1, v)
        if isinstance(v, str):
            return (2, v)
        raise NotImplementedError("comparing " + type(v).__name__)
    ka, kb = key(a), key(b)
    return (ka > kb) - (ka < kb)


def value_matches(v, cond):
    """v (possibly MISSING or an array) against a query condition."""
    if isinstance(cond, dict) and cond and all(k.startswith("$")
                                               for k in cond):
        return all(op_matches(v, op, arg) for op, arg in cond.items())
    if isinstance(v, list):
        return v == cond or cond in v
    return v is not MISSING and v == cond


def any_element(v, pred):
    if isinstance(v, list):
        return any(pred(x) for x in v)
    return v is not MISSING and pred(v)


def op_matches(v, op, arg):
    if op == "$eq":
        return value_matches(v, arg)
    if op == "$ne":
        return not value_matches(v, arg)
    if op == "$in":
        return any(value_matches(v, a) for a in arg)
    if op == "$nin":
        return not any(value_matches(v, a) for a in arg)
    if op == "$all":
        return isinstance(v, list) and all(a in v for a in arg)
    if op == "$exists":
        return (v is not MISSING) == bool(arg)
    if op in ("$gt", "$gte", "$lt", "$lte"):
        def pred(x):
            c = compare(x, arg)
            return {"$gt": c > 0, "$gte": c >= 0, "$lt": c < 0,
                    "$lte": c <= 0}[op]
        return any_element(v, pred)
    raise NotImplementedError("query operator " + op)


def matches(doc, query):
    for k, cond in query.items():
        if k == "$or":
            if not any(matches(doc, q) for q in cond):
                return False
        elif k == "$and":
            if not all(matches(doc, q) for q in cond):
                return False
        elif k.startswith("$"):
            raise NotImplementedError("query operator " + k)
        elif not value_matches(get_path(doc, k), cond):
            return False
    return True


# ---- stages ---------------------------------------------------------------

def hashable(v):
    if isinstance(v, list):
        return ("list",) + tuple(hashable(x) for x in v)
    if isinstance(v, dict):
        return ("dict",) + tuple((k, hashable(x)) for k, x in v.items())
    return v


def group(docs, spec):
    out = {}
    order = []
    for d in docs:
        key = expr(spec["_id"], d)
        hk = hashable(key)
        if hk not in out:
            out[hk] = {"_id": key}
            order.append(hk)
            for f, acc in spec.items():
                if f == "_id":
                    continue
                (op, _), = acc.items()
                out[hk][f] = {"$sum": 0, "$addToSet": [], "$push": [],
                              "$min": None, "$max": None, "$first": MISSING,
                              "$last": None}[op]
        g = out[hk]
        for f, acc in spec.items():
            if f == "_id":
                continue
            (op, arg), = acc.items()
            v = expr(arg, d)
            if op == "$sum":
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    g[f] += v
            elif op == "$addToSet":
                if v not in g[f]:
                    g[f].append(v)
            elif op == "$push":
                g[f].append(v)
            elif op == "$min":
                if v is not None and (g[f] is None or compare(v, g[f]) < 0):
                    g[f] = v
            elif op == "$max":
                if v is not None and (g[f] is None or compare(v, g[f]) > 0):
                    g[f] = v
            elif op == "$first":
                if g[f] is MISSING:
                    g[f] = v
            elif op == "$last":
                g[f] = v
            else:
                raise NotImplementedError("accumulator " + op)
    return [out[k] for k in order]


def sort(docs, spec):
    docs = list(docs)
    for field, direction in reversed(list(spec.items())):
        import functools

        def cmp(a, b, field=field):
            return compare(get_path(a, field), get_path(b, field))
        docs.sort(key=functools.cmp_to_key(cmp), reverse=direction < 0)
    return docs


def project(docs, spec):
    out = []
    for d in docs:
        n = {}
        if spec.get("_id", 1) and "_id" in d:
            n["_id"] = d["_id"]
        for f, v in spec.items():
            if f == "_id":
                continue
            if v in (1, True):
                got = get_path(d, f)
                if got is not MISSING:
                    n[f] = got
            elif v in (0, False):
                raise NotImplementedError("exclusion in $project")
            else:
                n[f] = expr(v, d)
        out.append(n)
    return out


def graph_lookup(docs, spec, collections):
    coll = collections[spec["from"]]
    restrict = spec.get("restrictSearchWithMatch", {})
    by_key = {}
    for c in coll:
        if not matches(c, restrict):
            continue
        v = get_path(c, spec["connectToField"])
        for x in (v if isinstance(v, list) else [v]):
            if x is not MISSING:
                by_key.setdefault(hashable(x), []).append(c)
    max_depth = spec.get("maxDepth")
    out = []
    for d in docs:
        start = expr(spec["startWith"], d)
        frontier = start if isinstance(start, list) else [start]
        frontier = [x for x in frontier if x is not None]
        seen = {}
        depth = 0
        while frontier and (max_depth is None or depth <= max_depth):
            nxt = []
            for value in frontier:
                for c in by_key.get(hashable(value), []):
                    ident = id(c)
                    if ident in seen:
                        continue
                    found = dict(c)
                    if "depthField" in spec:
                        found[spec["depthField"]] = depth
                    seen[ident] = found
                    v = get_path(c, spec["connectFromField"])
                    if v is not MISSING and v is not None:
                        nxt.extend(v if isinstance(v, list) else [v])
            frontier = nxt
            depth += 1
        n = dict(d)
        n[spec["as"]] = list(seen.values())
        out.append(n)
    return out


def unwind(docs, path):
    field = path[1:]
    out = []
    for d in docs:
        v = d.get(field, MISSING)
        if isinstance(v, list):
            for x in v:
                n = dict(d)
                n[field] = x
                out.append(n)
        elif v is not MISSING and v is not None:
            out.append(d)
    return out


def run(pipeline, docs, collections=None):
    """Evaluates pipeline (a list of stages, as JSON) over docs."""
    collections = collections or {}
    for stage in pipeline:
        (name, spec), = stage.items()
        if name == "$match":
            docs = [d for d in docs if matches(d, spec)]
        elif name == "$group":
            docs = group(docs, spec)
        elif name == "$sort":
            docs = sort(docs, spec)
        elif name == "$limit":
            docs = docs[:spec]
        elif name == "$project":
            docs = project(docs, spec)
        elif name in ("$addFields", "$set"):
            docs = [dict(d, **{k: expr(v, d) for k, v in spec.items()})
                    for d in docs]
        elif name == "$graphLookup":
            docs = graph_lookup(docs, spec, collections)
        elif name == "$unwind":
            docs = unwind(docs, spec)
        else:
            raise NotImplementedError("stage " + name)
    return docs
