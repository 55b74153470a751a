// A class the JDI driver redefines (hot swap) between stops. The version in
// v2/ has the same code on other lines, so a stale line table shows.
public class Swappable {
    static int through(Debuggee d, int n) {
        int doubled = n * 2; // LINE:through
        return d.marker(doubled / 2);
    }
}
