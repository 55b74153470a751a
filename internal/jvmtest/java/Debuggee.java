// A small program to debug: a deep recursion (40+ frames) that ends in
// marker(), a few classes, and a loop that reaches marker() once per round,
// on a new object each round.
// Lines tagged with a "// LINE:name" comment are found by the tests by name.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Debuggee {
    interface Shape {
        double area();
    }

    static final class Square implements Shape {
        private final double side;

        Square(double side) {
            this.side = side;
        }

        public double area() {
            return side * side; // LINE:area
        }
    }

    private static int created;
    private final String name;
    private int counter;
    private final List<Shape> shapes = new ArrayList<>();
    private final int[] recent = new int[4];
    // rendered counts the calls of toString: an IDE's renderer calls it at
    // every stop, so a debugger that shows a value cached from before a
    // call shows a wrong count.
    private int rendered;
    // seen maps each text marker() made to its local: a map whose table
    // and nodes a debugger's dump walks.
    private final Map<String, Integer> seen = new HashMap<>();

    Debuggee(String name) {
        this.name = name;
        created++;
    }

    int recurse(int n) {
        if (n == 0) {
            return Swappable.through(this, n);
        }
        int next = n - 1;
        return recurse(next) + 1; // LINE:recurse
    }

    int marker(int n) {
        int local = n + 42; // LINE:marker
        String text = "value-" + local;
        shapes.add(new Square(local));
        seen.put(text, local);
        double total = 0;
        for (Shape s : shapes) {
            total += s.area();
        }
        counter += text.length() + (int) total % 7;
        recent[counter % recent.length] = local;
        try {
            refuse(local);
        } catch (IllegalStateException e) {
            counter++; // LINE:caught
        }
        return local;
    }

    // refuse throws what marker catches, each round: an exception a
    // debugger's exception breakpoint stops at (caught, in Debuggee).
    static void refuse(int local) {
        throw new IllegalStateException("refused " + local);
    }

    @Override
    public String toString() {
        rendered++;
        return "Debuggee " + name + " rendered " + rendered + " shapes " + shapes.size();
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        Debuggee d = new Debuggee("debuggee");
        // A thread that keeps running (and changing its state) while the main
        // thread is stopped with suspend policy EVENT_THREAD.
        Thread worker = new Thread(() -> {
            long ticks = 0;
            while (true) {
                ticks++;
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "worker");
        worker.setDaemon(true);
        worker.start();
        // A local of a generic type, for the variable tables with generics.
        List<Thread> started = new ArrayList<>();
        started.add(worker);
        // Each round on a new object, as a program calls a method on one
        // object after another: `this` differs from one breakpoint to the next.
        int threads = 0;
        boolean together = false;
        for (int i = 1; i < args.length; i++) {
            if (args[i].startsWith("threads=")) {
                threads = Integer.parseInt(args[i].substring("threads=".length()));
            } else if (args[i].equals("together")) {
                together = true;
            } else if (args[i].startsWith("classes=")) {
                loadGenerated(args[i].substring("classes=".length()));
            }
        }
        if (threads > 0) {
            Runnable work = together ? new Together(d, rounds, threads) : new Turns(d, rounds, threads);
            onThreads(work, threads);
            System.out.println("debuggee done " + d.counter + " " + d.name);
            return;
        }
        // Fewer than 0 rounds: rounds a millisecond apart until stopped.
        for (int round = 0; rounds < 0 || round < rounds; round++) {
            Debuggee r = new Debuggee("round-" + round);
            r.recurse(40);
            d.counter += r.counter;
            if (rounds < 0) {
                Thread.sleep(1);
            }
        }
        System.out.println("debuggee done " + d.counter + " " + d.name);
    }

    // loadGenerated loads N generated classes (gen.G0 ...) from DIR, given as
    // N:DIR, and prints how many: an app's worth of classes for a debugger
    // that attaches late (jvmtest.StartLoaded).
    static void loadGenerated(String spec) throws Exception {
        int colon = spec.indexOf(':');
        int n = Integer.parseInt(spec.substring(0, colon));
        java.net.URLClassLoader loader = new java.net.URLClassLoader(
                new java.net.URL[] {new java.io.File(spec.substring(colon + 1)).toURI().toURL()});
        for (int i = 0; i < n; i++) {
            Class.forName("gen.G" + i, true, loader);
        }
        System.out.println("loaded " + n + " classes");
    }

    // onThreads runs work on threads app-0, app-1, ... and waits for them:
    // round r on app-(r % threads), each on a new object, taking turns
    // (Turns: the stops come from one thread after another in a known order
    // while the others wait their turn) or at once (Together).
    static void onThreads(Runnable work, int threads) throws InterruptedException {
        List<Thread> apps = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread app = new Thread(work, "app-" + i);
            app.start();
            apps.add(app);
        }
        for (Thread app : apps) {
            app.join();
        }
    }

    // Turns is what each app thread runs (a named class: a lambda's class
    // name carries an address, which differs from one VM to the next).
    static final class Turns implements Runnable {
        private final Debuggee d;
        private final int rounds;
        private final int threads;
        private int started;
        private int next;

        Turns(Debuggee d, int rounds, int threads) {
            this.d = d;
            this.rounds = rounds;
            this.threads = threads;
        }

        public void run() {
            int first = Integer.parseInt(Thread.currentThread().getName().substring("app-".length()));
            synchronized (this) {
                started++;
                notifyAll();
            }
            // Every app thread is alive from the first stop to the last:
            // the first round waits for all to start, and each thread
            // outlives its own rounds until all are done.
            for (int round = first; round < rounds + threads; round += threads) {
                synchronized (this) {
                    while (started < threads || next < Math.min(round, rounds)) {
                        try {
                            wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
                if (round >= rounds) {
                    return;
                }
                Debuggee r = new Debuggee("round-" + round);
                r.recurse(40);
                synchronized (this) {
                    d.counter += r.counter;
                    next++;
                    notifyAll();
                }
            }
        }
    }

    // Together is what each app thread runs with "together": its rounds
    // (r % threads == its number) one after another, at once with the other
    // threads, so that under suspend policy EVENT_THREAD several threads
    // are suspended at their own breakpoints while others run. Every app
    // thread is alive from the first stop to the last: each starts its
    // rounds once all have started, and ends once all are done.
    static final class Together implements Runnable {
        private final Debuggee d;
        private final int rounds;
        private final int threads;
        private int started;
        private int done;

        Together(Debuggee d, int rounds, int threads) {
            this.d = d;
            this.rounds = rounds;
            this.threads = threads;
        }

        public void run() {
            int first = Integer.parseInt(Thread.currentThread().getName().substring("app-".length()));
            try {
                synchronized (this) {
                    started++;
                    notifyAll();
                    while (started < threads) {
                        wait();
                    }
                }
                for (int round = first; round < rounds; round += threads) {
                    Debuggee r = new Debuggee("round-" + round);
                    r.recurse(40);
                    synchronized (this) {
                        d.counter += r.counter;
                    }
                }
                synchronized (this) {
                    done++;
                    notifyAll();
                    while (done < threads) {
                        wait();
                    }
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
