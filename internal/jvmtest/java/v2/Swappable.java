// A class the JDI driver redefines (hot swap) between stops: version 2.
// Same code as ../Swappable.java, moved down by several lines.
//
//
//
//
//
public class Swappable {
    static int through(Debuggee d, int n) {

        int doubled = n * 2; // LINE:through
        return d.marker(doubled / 2);
    }
}
