// A small program to debug: a deep recursion (40+ frames) that ends in
// marker(), a few classes, and a loop that reaches marker() once per round,
// on a new object each round.
// Lines tagged with a "// LINE:name" comment are found by the tests by name.
import java.util.ArrayList;
import java.util.List;

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
        double total = 0;
        for (Shape s : shapes) {
            total += s.area();
        }
        counter += text.length() + (int) total % 7;
        recent[counter % recent.length] = local;
        return local;
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
}
