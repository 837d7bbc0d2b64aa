/* Leak.java -- a JVM with known objects, for tests/cli/import_hprof.sh.
 *
 * java Leak NODES LEAVES fills a static map (Leak.CACHE) with a linked
 * list of NODES Node objects and a list of LEAVES Leaf objects, each Leaf
 * holding an int[] of i % 7 elements, prints "ready" and waits to be
 * killed. The objects are built in fill(), so that no local variable of
 * a running frame holds them: only the static field does. Node and the
 * Base/Mid/Leaf chain have fields whose layout leaves gaps (a byte, then
 * a long), so that jmap's byte counts check heapfmt-import's layout.
 * Leak.SOFT holds a Node[3] through a SoftReference alone (a full GC
 * keeps it while memory lasts): its referent is a weak reference. */
import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Leak {
    static class Node {
        Node next;
        long value;
        int id;
        byte flag;
    }

    static class Base {
        byte a;
    }

    static class Mid extends Base {
        long b;
    }

    static class Leaf extends Mid {
        int c;
        short d;
        Object ref;
    }

    static final Map<String, Object> CACHE = new HashMap<>();
    static SoftReference<Node[]> SOFT;

    static void fill(int nodes, int leaves) {
        Node head = null;
        for (int i = 0; i < nodes; i++) {
            Node n = new Node();
            n.next = head;
            n.id = i;
            head = n;
        }
        CACHE.put("nodes", head);
        List<Leaf> list = new ArrayList<>();
        for (int i = 0; i < leaves; i++) {
            Leaf l = new Leaf();
            l.ref = new int[i % 7];
            list.add(l);
        }
        CACHE.put("leaves", list);
        SOFT = new SoftReference<>(new Node[3]);
    }

    public static void main(String[] args) throws Exception {
        fill(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
