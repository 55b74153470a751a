// A second JDI client for shared sessions: it attaches to host:port and, every
// 100 ms, lists the VM's threads with their status, as a monitoring tool would.
// It prints one line per round with the number of threads and whether a
// thread named "main" was seen, then disposes.
//
// Usage: java ThreadLister HOST PORT ROUNDS
import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import java.util.*;

public class ThreadLister {
    public static void main(String[] args) throws Exception {
        AttachingConnector socket = null;
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.transport().name().equals("dt_socket")) {
                socket = c;
            }
        }
        Map<String, Connector.Argument> ca = socket.defaultArguments();
        ca.get("hostname").setValue(args[0]);
        ca.get("port").setValue(args[1]);
        int rounds = Integer.parseInt(args[2]);
        VirtualMachine vm = socket.attach(ca);
        for (int i = 0; i < rounds; i++) {
            int n = 0;
            boolean main = false;
            try {
                for (ThreadReference t : vm.allThreads()) {
                    n++;
                    t.status();
                    main |= t.name().equals("main");
                }
            } catch (VMDisconnectedException e) {
                System.out.println("round " + i + " disconnected");
                return;
            } catch (ObjectCollectedException e) {
                // a thread ended while listed: fine
            }
            System.out.println("round " + i + " threads " + (n > 0) + " main " + main);
            Thread.sleep(100);
        }
        vm.dispose();
        System.out.println("lister done");
    }
}
