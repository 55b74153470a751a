// A JDI debugger that acts like an IDE at each stop, for transparency tests
// and benchmarks. It attaches to host:port, stops at the line of Debuggee
// tagged LINE:marker, and at each stop reads every frame (source name, line,
// method, declaring type), the visible variables of the top frame and their
// values, `this`, and the threads; then steps over, into and out, and
// resumes. It prints a transcript that must not depend on object ids.
//
// Usage: java JdiDriver HOST PORT STOPS MARKER_LINE [hotswap=CLASS_FILE] [setvalue] [eventthread] [extras] [topframes] [renderers] [exit] [eclipse] [parallel=N] [deep=N] [bigattach=M:LINE] [events] [conditional] [dropframe] [suspendother] [pause] [arrays]
//
// hotswap redefines Swappable after the first stop; setvalue changes a local
// at each stop and reads it back; extras expands `this` at every stop and
// step as an IDE's variables view does (its class's source, superclass and
// interfaces, each field's value, arrays' lengths); eventthread stops with suspend policy
// EVENT_THREAD, so that the other threads keep running; topframes reads
// every other suspended thread's top frame in the threads view; renderers
// shows `this` and each object among the locals as IntelliJ's and Android
// Studio's default renderers do, at every stop and step: toString() of an
// object whose class overrides it, size() of a collection (this's shapes
// among them), each invoked in the stopped thread, then the top frame read
// again (JDI forgets a thread's frames once it ran); exit ends the VM
// with vm.exit(7) at the last stop's event instead of inspecting it and
// disposing, and prints how that went. deep=N shows, at every breakpoint
// stop, this and the visible variables of the N frames below the top, as
// a user walking up a deep stack in an IDE does (the debuggee's stack is
// 40 frames deep at its marker, with a static frame right below the top).
// events also stops where an IDE's other kinds of breakpoint stop: a
// watchpoint on Debuggee.counter (modified), an exception breakpoint on
// exceptions thrown in Debuggee (caught or not), and the exits of
// Square's methods (their return values), each request EVENT_STOPS times,
// then deleted; at each the event's details and the top frame are shown,
// in steps too.
// conditional makes the breakpoint a conditional one, as an IDE evaluates
// it: at each hit the top frame's n is read, and only every
// CONDITIONAL_EVERY-th hit is a stop the user sees (inspected, stepped);
// the others are resumed at once. STOPS counts those the user sees.
// dropframe drops the top frame at each breakpoint stop before the steps,
// as an IDE's "Drop Frame" (ThreadReference.popFrames): the caller is the
// top again, at the call, and is shown; then the steps go into the call
// again (to the breakpoint's line), over and out.
// suspendother, at each breakpoint stop, suspends the running thread
// "worker" from the threads view as a user does (ThreadReference.suspend;
// with eventthread the worker runs through the stop), shows whether it is
// suspended, its frame count's sign and its bottom frame's method (where
// it runs is not deterministic), and resumes it. With together it also
// shows the stopped thread's suspend count at every stop, and suspends the
// worker at every second stop of each app thread only.
// pause, at each breakpoint stop, pauses the whole VM as a user presses an
// IDE's Pause (VirtualMachine.suspend; with eventthread the other threads
// ran through the stop until then), reads the threads view as the IDE
// refreshes it (every thread's name, status, suspension and depth), shows
// whether every thread is suspended and, of the app's threads main and
// worker, the bottom frame of its stack, and resumes the VM (the stopped thread stays
// suspended by its event). With together it pauses at every third stop of
// each app thread only, while the other app threads are parked at their
// own stops or running.
// arrays shows, at every stop and step, the arrays of `this` expanded as an
// IDE's variables view shows an expanded array: this's fields read at once,
// the elements of its int[] recent (then its first element set one higher,
// as a user edits it in the view, and the elements again), and, through
// its list shapes' own fields (an ArrayList's raw view), the elements of
// the list's backing array, each object element by its type.
//
// bigattach=M:LINE attaches as an IDE attaches to a running app with many
// classes (a VM jvmtest.StartLoaded started): it lists every class
// (VirtualMachine.AllClassesWithGeneric), then sets a breakpoint at LINE
// in M of the generated classes (gen.G*, spread over them) and one at the
// marker, each class found in the list and its lines asked, instead of
// waiting for Debuggee's ClassPrepare.
//
// After the transcript it prints elapsed_ns (the session's wall time, from
// attach to dispose) and attach_ns (from attach until the breakpoint was
// set: an IDE's attach).
//
// eclipse attaches with Eclipse's JDI (org.eclipse.jdi.Bootstrap, the
// implementation the Eclipse IDE and VS Code's Java debugger run on; its
// jars on the class path) instead of the JDK's. parallel=N inspects each
// stop as an IDE's async mode does (java-debug's when a request takes over
// 15 ms, IntelliJ's async JDI calls): N threads ask in concurrent waves,
// the frames and the threads first, then each frame's location and each
// thread's name, status and depth, then the top frame's this, variables
// and values, then the expanded this; invocations stay serial in the
// stopped thread. The transcript is the same as serially.
import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.nio.file.*;
import java.util.*;
import java.util.concurrent.*;

public class JdiDriver {
    private final VirtualMachine vm;
    private final StringBuilder out = new StringBuilder();
    private int policy = EventRequest.SUSPEND_ALL;
    private boolean exit;
    private boolean extras;
    private boolean arrays;
    private boolean topFrames;
    private boolean renderers;
    // deep: the frames below the top whose this and variables are shown at
    // every breakpoint stop (deep=N; 0: none).
    private int deep;
    // events: the watchpoint, exception and method exit requests (events),
    // and how many times each stopped so far.
    private boolean events;
    private final Map<EventRequest, Integer> eventStops = new HashMap<>();
    static final int EVENT_STOPS = 3;
    // conditional: the breakpoint's condition holds at every
    // CONDITIONAL_EVERY-th hit (conditional); hits counts them.
    private boolean conditional;
    private int hits;
    static final int CONDITIONAL_EVERY = 3;
    // dropFrame: the top frame is dropped at each breakpoint stop (dropframe).
    private boolean dropFrame;
    // suspendOther: the worker thread is suspended and resumed at each
    // breakpoint stop (suspendother).
    private boolean suspendOther;
    // pause: the whole VM is paused and resumed at each breakpoint stop (pause).
    private boolean pause;
    // pool asks in concurrent waves (parallel=N); null: one at a time.
    private ExecutorService pool;
    // start is when the driver began to attach; attached, how long after
    // it the breakpoint was set (the debugger ready, as an IDE's attach
    // ends): 0 until then.
    private long start;
    private long attached;
    // together: the app threads run at once (the debuggee's "together"):
    // each stop is inspected and its event set resumed, the stopped thread
    // alone under EVENT_THREAD, without steps; the stops' blocks go in the
    // transcript sorted, as the threads reach them in any order.
    private boolean together;
    // stopsOf counts each app thread's stops when together: a thread's
    // k-th stop is its own k-th round, whichever order the threads reach
    // theirs in, so what is done at it goes in the transcript the same.
    private final Map<String, Integer> stopsOf = new HashMap<>();
    // bigAttach and bigAttachLine: bigattach=M:LINE (0: none).
    private int bigAttach;
    private int bigAttachLine;

    JdiDriver(VirtualMachine vm) {
        this.vm = vm;
    }

    public static void main(String[] args) throws Exception {
        String host = args[0];
        String port = args[1];
        int stops = Integer.parseInt(args[2]);
        int markerLine = Integer.parseInt(args[3]);
        String hotswap = null;
        boolean setValue = false;
        boolean eventThread = false;
        boolean exit = false;
        boolean extras = false;
        boolean topFrames = false;
        boolean renderers = false;
        boolean together = false;
        boolean eclipse = false;
        int parallel = 0;
        int deep = 0;
        int bigAttach = 0;
        int bigAttachLine = 0;
        boolean events = false;
        boolean conditional = false;
        boolean dropFrame = false;
        boolean suspendOther = false;
        boolean pause = false;
        boolean arrays = false;
        for (int i = 4; i < args.length; i++) {
            if (args[i].startsWith("hotswap=")) {
                hotswap = args[i].substring("hotswap=".length());
            } else if (args[i].equals("setvalue")) {
                setValue = true;
            } else if (args[i].equals("eventthread")) {
                eventThread = true;
            } else if (args[i].equals("extras")) {
                extras = true;
            } else if (args[i].equals("topframes")) {
                topFrames = true;
            } else if (args[i].equals("renderers")) {
                renderers = true;
            } else if (args[i].equals("together")) {
                together = true;
            } else if (args[i].equals("exit")) {
                exit = true;
            } else if (args[i].equals("eclipse")) {
                eclipse = true;
            } else if (args[i].equals("events")) {
                events = true;
            } else if (args[i].equals("conditional")) {
                conditional = true;
            } else if (args[i].equals("dropframe")) {
                dropFrame = true;
            } else if (args[i].equals("suspendother")) {
                suspendOther = true;
            } else if (args[i].equals("pause")) {
                pause = true;
            } else if (args[i].equals("arrays")) {
                arrays = true;
            } else if (args[i].startsWith("bigattach=")) {
                String[] ml = args[i].substring("bigattach=".length()).split(":");
                bigAttach = Integer.parseInt(ml[0]);
                bigAttachLine = Integer.parseInt(ml[1]);
            } else if (args[i].startsWith("deep=")) {
                deep = Integer.parseInt(args[i].substring("deep=".length()));
            } else if (args[i].startsWith("parallel=")) {
                parallel = Integer.parseInt(args[i].substring("parallel=".length()));
            } else if (!args[i].isEmpty()) {
                throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }

        AttachingConnector socket = null;
        for (AttachingConnector c : manager(eclipse).attachingConnectors()) {
            if (c.transport().name().equals("dt_socket")) {
                socket = c;
            }
        }
        Map<String, Connector.Argument> ca = socket.defaultArguments();
        ca.get("hostname").setValue(host);
        ca.get("port").setValue(port);
        long start = System.nanoTime();
        VirtualMachine vm = socket.attach(ca);
        JdiDriver d = new JdiDriver(vm);
        d.start = start;
        d.bigAttach = bigAttach;
        d.bigAttachLine = bigAttachLine;
        d.policy = eventThread ? EventRequest.SUSPEND_EVENT_THREAD : EventRequest.SUSPEND_ALL;
        d.exit = exit;
        d.extras = extras;
        d.arrays = arrays;
        d.topFrames = topFrames;
        d.renderers = renderers;
        d.deep = deep;
        d.events = events;
        d.conditional = conditional;
        d.dropFrame = dropFrame;
        d.suspendOther = suspendOther;
        d.pause = pause;
        d.together = together;
        if (parallel > 0) {
            d.pool = Executors.newFixedThreadPool(parallel, r -> {
                Thread th = new Thread(r, "jdi-async");
                th.setDaemon(true);
                return th;
            });
        }
        d.run(stops, markerLine, hotswap, setValue);
        long elapsed = System.nanoTime() - start;
        System.out.print(d.out);
        System.out.println("elapsed_ns " + elapsed);
        System.out.println("attach_ns " + d.attached);
    }

    // manager returns the JDK's JDI, or Eclipse's (found on the class path at
    // run time: the driver compiles without it).
    static VirtualMachineManager manager(boolean eclipse) throws Exception {
        if (!eclipse) {
            return Bootstrap.virtualMachineManager();
        }
        return (VirtualMachineManager) Class.forName("org.eclipse.jdi.Bootstrap").getMethod("virtualMachineManager").invoke(null);
    }

    // wave runs the tasks at once on the pool (in order without one) and
    // returns their results in the tasks' order.
    <T> List<T> wave(List<Callable<T>> tasks) throws Exception {
        List<T> results = new ArrayList<>();
        if (pool == null) {
            for (Callable<T> c : tasks) {
                results.add(c.call());
            }
            return results;
        }
        for (Future<T> f : pool.invokeAll(tasks)) {
            try {
                results.add(f.get());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception) {
                    throw (Exception) e.getCause();
                }
                throw e;
            }
        }
        return results;
    }

    void line(String s) {
        out.append(s).append('\n');
    }

    void run(int stops, int markerLine, String hotswap, boolean setValue) throws Exception {
        EventRequestManager erm = vm.eventRequestManager();
        if (bigAttach > 0) {
            attachToLoaded(markerLine);
        } else {
            ClassPrepareRequest cpr = erm.createClassPrepareRequest();
            cpr.addClassFilter("Debuggee");
            cpr.setSuspendPolicy(EventRequest.SUSPEND_ALL);
            cpr.enable();
        }
        // No vm.resume() here: the VM started suspended, and the VMStart event
        // set's resume below is what lets it run. Resuming twice would race
        // with the suspension of the next event.
        int stop = 0;
        List<String> blocks = new ArrayList<>();
        EventQueue q = vm.eventQueue();
        while (stop < stops) {
            EventSet set = q.remove();
            boolean resume = true;
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent) {
                    ReferenceType t = ((ClassPrepareEvent) e).referenceType();
                    Location loc = t.locationsOfLine(markerLine).get(0);
                    BreakpointRequest bp = erm.createBreakpointRequest(loc);
                    bp.setSuspendPolicy(policy);
                    bp.enable();
                    if (attached == 0) {
                        attached = System.nanoTime() - start;
                    }
                    line("prepared " + t.name() + " breakpoint at " + describe(loc));
                    if (events) {
                        requestEvents(t);
                    }
                } else if (e instanceof BreakpointEvent) {
                    ThreadReference t = ((BreakpointEvent) e).thread();
                    if (conditional && !conditionHolds(t)) {
                        continue;
                    }
                    stop++;
                    if (exit && stop == stops) {
                        break; // exit while the stop's speculation is under way
                    }
                    if (together) {
                        int from = out.length();
                        line("stop in thread " + t.name());
                        inspect(t, setValue);
                        inspectTogether(t);
                        blocks.add(out.substring(from));
                        out.setLength(from);
                        continue;
                    }
                    line("stop " + stop + " in thread " + t.name());
                    inspect(t, setValue);
                    if (suspendOther) {
                        suspendWorker();
                    }
                    if (pause) {
                        pauseAll();
                    }
                    if (dropFrame) {
                        t.popFrames(t.frame(0));
                        line("drop frame -> " + describe(t.frame(0).location()));
                        inspectTop(t);
                        step(t, StepRequest.STEP_INTO, "into");
                        step(t, StepRequest.STEP_OVER, "over");
                    } else {
                        step(t, StepRequest.STEP_OVER, "over");
                        step(t, StepRequest.STEP_INTO, "into");
                    }
                    step(t, StepRequest.STEP_OUT, "out");
                    if (stop == 1 && hotswap != null) {
                        ReferenceType sw = vm.classesByName("Swappable").get(0);
                        vm.redefineClasses(Map.of(sw, Files.readAllBytes(Paths.get(hotswap))));
                        line("redefined Swappable");
                    }
                } else if (otherStop(e)) {
                    continue;
                } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    line("vm ended early at stop " + stop);
                    return;
                }
            }
            if (stop >= stops) {
                break; // dispose while suspended: the VM must not run to its end first
            }
            if (resume) {
                set.resume();
            }
        }
        Collections.sort(blocks);
        for (String b : blocks) {
            out.append(b);
        }
        if (exit) {
            try {
                vm.exit(7);
                line("exited after " + stop + " stops");
            } catch (VMDisconnectedException e) {
                line("exit failed: " + e);
            }
            return;
        }
        vm.dispose();
        line("disposed after " + stop + " stops");
    }

    // attachToLoaded attaches as an IDE does to a running app (bigattach):
    // every class listed, then breakpoints in bigAttach generated classes
    // and at the marker.
    void attachToLoaded(int markerLine) throws Exception {
        EventRequestManager erm = vm.eventRequestManager();
        List<ReferenceType> generated = new ArrayList<>();
        for (ReferenceType t : vm.allClasses()) {
            if (t.name().startsWith("gen.G")) {
                generated.add(t);
            }
        }
        generated.sort(Comparator.comparing(ReferenceType::name));
        int step = Math.max(1, generated.size() / bigAttach);
        int set = 0;
        for (int i = 0; i < generated.size() && set < bigAttach; i += step) {
            ReferenceType t = vm.classesByName(generated.get(i).name()).get(0);
            BreakpointRequest bp = erm.createBreakpointRequest(t.locationsOfLine(bigAttachLine).get(0));
            bp.setSuspendPolicy(policy);
            bp.enable();
            set++;
        }
        ReferenceType debuggee = vm.classesByName("Debuggee").get(0);
        BreakpointRequest bp = erm.createBreakpointRequest(debuggee.locationsOfLine(markerLine).get(0));
        bp.setSuspendPolicy(policy);
        bp.enable();
        attached = System.nanoTime() - start;
        line("attached: breakpoints in " + set + " generated classes and at the marker");
    }

    void step(ThreadReference t, int depth, String name) throws Exception {
        EventRequestManager erm = vm.eventRequestManager();
        StepRequest sr = erm.createStepRequest(t, StepRequest.STEP_LINE, depth);
        for (String p : new String[] {"java.*", "javax.*", "sun.*", "jdk.*", "com.sun.*"}) {
            sr.addClassExclusionFilter(p);
        }
        sr.addCountFilter(1);
        sr.setSuspendPolicy(policy);
        sr.enable();
        vm.resume();
        while (true) {
            EventSet set = vm.eventQueue().remove();
            for (Event e : set) {
                if (e instanceof StepEvent) {
                    erm.deleteEventRequest(sr);
                    line("step " + name + " -> " + describe(((StepEvent) e).location()));
                    inspectTop(t);
                    return;
                }
                otherStop(e);
            }
            set.resume();
        }
    }

    // inspectTogether does at a stop of app threads run together what
    // suspendother and pause ask, on each thread's own schedule: the
    // stopped thread's suspend count at every stop, the worker suspended
    // from the threads view at every second, the VM paused at every third.
    void inspectTogether(ThreadReference t) throws Exception {
        int k = stopsOf.merge(t.name(), 1, Integer::sum);
        if (suspendOther) {
            line("  suspend count " + t.suspendCount());
            if (k % 2 == 0) {
                suspendWorker();
            }
        }
        if (pause && k % 3 == 0) {
            pauseAll();
        }
    }

    // suspendWorker suspends the thread "worker" as a user does from the
    // threads view, shows what is deterministic of it, and resumes it.
    void suspendWorker() throws Exception {
        for (ThreadReference o : vm.allThreads()) {
            if (!o.name().equals("worker")) {
                continue;
            }
            o.suspend();
            List<StackFrame> frames = o.frames();
            StackFrame bottom = frames.get(frames.size() - 1);
            line("  suspended worker: " + o.isSuspended() + ", count " + o.suspendCount() + ", frames " + (o.frameCount() > 0)
                    + ", bottom " + bottom.location().declaringType().name() + "." + bottom.location().method().name());
            o.resume();
            line("  resumed worker: " + o.isSuspended());
        }
    }

    // pauseAll pauses the VM as a user presses an IDE's Pause, reads the
    // threads view as the IDE refreshes it, shows what is deterministic of
    // it (where running threads stood is not), and resumes the VM.
    void pauseAll() throws Exception {
        vm.suspend();
        boolean all = true;
        List<String> shown = new ArrayList<>();
        for (ThreadReference o : vm.allThreads()) {
            String name = o.name();
            o.status();
            all &= o.isSuspended();
            o.frameCount();
            if (name.equals("main") || name.equals("worker")) {
                // The stack of each app thread, as a user clicks it.
                List<StackFrame> frames = o.frames();
                StackFrame bottom = frames.get(frames.size() - 1);
                shown.add("  paused " + name + ": bottom " + bottom.location().declaringType().name() + "."
                        + bottom.location().method().name());
            }
        }
        Collections.sort(shown);
        line("  paused: every thread suspended " + all);
        for (String s : shown) {
            line(s);
        }
        vm.resume();
    }

    // conditionHolds evaluates the breakpoint's condition at a hit in
    // thread t as an IDE does, reading the top frame's n, and notes the
    // hits where it does not hold.
    boolean conditionHolds(ThreadReference t) throws Exception {
        hits++;
        StackFrame top = t.frame(0);
        Value n = top.getValue(top.visibleVariableByName("n"));
        boolean holds = hits % CONDITIONAL_EVERY == 0;
        if (!holds) {
            line("hit " + hits + ": n is " + value(n) + ", condition false");
        }
        return holds;
    }

    // requestEvents sets the other kinds of breakpoint an IDE sets (events)
    // in the class debuggee, just prepared.
    void requestEvents(ReferenceType debuggee) {
        EventRequestManager erm = vm.eventRequestManager();
        ModificationWatchpointRequest watch = erm.createModificationWatchpointRequest(debuggee.fieldByName("counter"));
        // An exception breakpoint on a type, as an IDE's: RuntimeException
        // (loaded as the VM starts, looked up by name) and its subclasses.
        List<ReferenceType> runtime = vm.classesByName("java.lang.RuntimeException");
        ExceptionRequest thrown = erm.createExceptionRequest(runtime.isEmpty() ? null : runtime.get(0), true, true);
        thrown.addClassFilter("Debuggee");
        MethodExitRequest exits = erm.createMethodExitRequest();
        exits.addClassFilter("Debuggee$Square");
        for (EventRequest r : List.of(watch, thrown, exits)) {
            r.setSuspendPolicy(policy);
            r.enable();
        }
    }

    // otherStop shows a stop of the requests of requestEvents, its details
    // and the top frame, and deletes its request after EVENT_STOPS stops;
    // it returns false for any other event.
    boolean otherStop(Event e) throws Exception {
        String what;
        String after = "";
        ThreadReference t;
        if (e instanceof ModificationWatchpointEvent) {
            ModificationWatchpointEvent w = (ModificationWatchpointEvent) e;
            what = "watch " + w.field().name() + " " + value(w.valueCurrent()) + " -> " + value(w.valueToBe());
            t = w.thread();
        } else if (e instanceof ExceptionEvent) {
            ExceptionEvent x = (ExceptionEvent) e;
            Location caught = x.catchLocation();
            what = "exception " + x.exception().referenceType().name();
            after = " caught at " + (caught == null ? "none" : describe(caught));
            t = x.thread();
        } else if (e instanceof MethodExitEvent) {
            MethodExitEvent m = (MethodExitEvent) e;
            String returned;
            try {
                returned = value(m.returnValue());
            } catch (UnsupportedOperationException u) {
                returned = "unknown";
            }
            what = "exit " + m.method().name() + " returns " + returned;
            t = m.thread();
        } else {
            return false;
        }
        line(what + " at " + describe(((Locatable) e).location()) + after + " in thread " + t.name());
        inspectTop(t);
        if (eventStops.merge(e.request(), 1, Integer::sum) >= EVENT_STOPS) {
            vm.eventRequestManager().deleteEventRequest(e.request());
        }
        return true;
    }

    void inspect(ThreadReference t, boolean setValue) throws Exception {
        if (pool != null) {
            inspectInWaves(t, setValue);
            return;
        }
        List<StackFrame> frames = t.frames();
        line("  frames " + frames.size());
        for (int i = 0; i < frames.size(); i++) {
            line("  #" + i + " " + describe(frames.get(i).location()));
        }
        inspectTop(t);
        if (setValue) {
            setN(t);
        }
        // Like an IDE's threads view: every thread's name, status and depth.
        // Only the names go in the transcript: system threads' states vary.
        List<String> threads = new ArrayList<>();
        for (ThreadReference other : vm.allThreads()) {
            threads.add(threadView(t, other));
        }
        Collections.sort(threads);
        line("  threads " + threads);
        showDeeper(t);
    }

    // setN changes the top frame's local n and reads it back.
    void setN(ThreadReference t) throws Exception {
        StackFrame top = t.frame(0);
        LocalVariable n = top.visibleVariableByName("n");
        top.setValue(n, vm.mirrorOf(((IntegerValue) top.getValue(n)).value() + 1000));
        line("  set n, now " + value(t.frame(0).getValue(n)));
    }

    // inspectInWaves is inspect as an async IDE asks: the frames and the
    // threads at once, then every frame's location (one task per method:
    // Eclipse's JDI fills a method's line table unsynchronised) and every
    // thread's view at once, then the top frame.
    @SuppressWarnings("unchecked")
    void inspectInWaves(ThreadReference t, boolean setValue) throws Exception {
        List<Callable<Object>> first = new ArrayList<>();
        first.add(() -> t.frames());
        first.add(() -> vm.allThreads());
        List<Object> got = wave(first);
        List<StackFrame> frames = (List<StackFrame>) got.get(0);
        List<ThreadReference> all = (List<ThreadReference>) got.get(1);
        Map<Method, List<Integer>> byMethod = new LinkedHashMap<>();
        for (int i = 0; i < frames.size(); i++) {
            byMethod.computeIfAbsent(frames.get(i).location().method(), m -> new ArrayList<>()).add(i);
        }
        String[] described = new String[frames.size()];
        List<Callable<Object>> second = new ArrayList<>();
        for (List<Integer> indexes : byMethod.values()) {
            second.add(() -> {
                for (int i : indexes) {
                    described[i] = describe(frames.get(i).location());
                }
                return null;
            });
        }
        for (ThreadReference other : all) {
            second.add(() -> threadView(t, other));
        }
        List<Object> views = wave(second).subList(byMethod.size(), second.size());
        line("  frames " + frames.size());
        for (int i = 0; i < frames.size(); i++) {
            line("  #" + i + " " + described[i]);
        }
        inspectTop(t);
        if (setValue) {
            setN(t);
        }
        List<String> threads = new ArrayList<>();
        for (Object v : views) {
            threads.add((String) v);
        }
        Collections.sort(threads);
        line("  threads " + threads);
        showDeeper(t);
    }

    // showDeeper shows this and the visible variables of the deep frames
    // below the top, as a user walking up a deep stack does: selecting a
    // frame has the IDE's variables view ask its this and its variables
    // (in one wave when in waves).
    void showDeeper(ThreadReference t) throws Exception {
        if (deep == 0) {
            return;
        }
        int n = Math.min(deep, t.frames().size() - 1);
        List<Callable<String>> tasks = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            int depth = i;
            tasks.add(() -> frameVariables(t, depth));
        }
        for (String l : wave(tasks)) {
            line(l);
        }
    }

    // frameVariables is the variables view of the frame at depth in one line.
    String frameVariables(ThreadReference t, int depth) throws Exception {
        StackFrame f = t.frame(depth);
        ObjectReference self = f.thisObject();
        StringBuilder b = new StringBuilder("  frame " + depth + " this " + (self == null ? "null" : self.referenceType().name()));
        try {
            List<LocalVariable> vars = f.visibleVariables();
            Map<LocalVariable, Value> values = f.getValues(vars);
            for (LocalVariable v : vars) {
                b.append(" " + v.name() + "=" + value(values.get(v)));
            }
        } catch (AbsentInformationException e) {
            b.append(" no local variable information");
        }
        return b.toString();
    }

    // threadView is one thread's line of the threads view (see inspect).
    String threadView(ThreadReference t, ThreadReference other) throws Exception {
        other.status();
        if (!other.isSuspended()) {
            return other.name();
        }
        int depth = other.frameCount();
        if (topFrames && depth > 0 && !other.equals(t)) {
            // Where each suspended thread is, as an IDE's threads view
            // shows it; left out of the transcript: a thread waiting its
            // turn may be anywhere on the way to its wait.
            other.frame(0).location();
        }
        return other.equals(t) ? other.name() + ":" + depth : other.name();
    }

    void inspectTop(ThreadReference t) throws Exception {
        if (pool != null) {
            inspectTopInWaves(t);
            return;
        }
        StackFrame top = t.frame(0);
        ObjectReference self = top.thisObject();
        line("    this " + (self == null ? "null" : self.referenceType().name()));
        if (extras && self != null) {
            expand(self);
        }
        if (arrays && self != null) {
            for (String l : arrayLines(self)) {
                line(l);
            }
        }
        List<Value> shown = new ArrayList<>();
        try {
            // Like an IDE's variables view: every visible variable in one request.
            List<LocalVariable> vars = top.visibleVariables();
            shown = showVariables(vars, top.getValues(vars));
        } catch (AbsentInformationException e) {
            line("    no local variable information");
        }
        if (renderers) {
            render(t, self, shown);
        }
    }

    // inspectTopInWaves is inspectTop as an async IDE asks: this and the
    // visible variables at once, then their values and the expanded this
    // at once; the renderers' invocations stay serial.
    @SuppressWarnings("unchecked")
    void inspectTopInWaves(ThreadReference t) throws Exception {
        StackFrame top = t.frame(0);
        List<Callable<Object>> first = new ArrayList<>();
        first.add(() -> top.thisObject());
        first.add(() -> {
            try {
                return top.visibleVariables();
            } catch (AbsentInformationException e) {
                return null;
            }
        });
        List<Object> got = wave(first);
        ObjectReference self = (ObjectReference) got.get(0);
        List<LocalVariable> vars = (List<LocalVariable>) got.get(1);
        List<Callable<Object>> second = new ArrayList<>();
        second.add(() -> vars == null ? null : top.getValues(vars));
        second.add(() -> extras && self != null ? expanded(self) : List.of());
        second.add(() -> arrays && self != null ? arrayLines(self) : List.of());
        got = wave(second);
        Map<LocalVariable, Value> values = (Map<LocalVariable, Value>) got.get(0);
        line("    this " + (self == null ? "null" : self.referenceType().name()));
        for (String l : (List<String>) got.get(1)) {
            line(l);
        }
        for (String l : (List<String>) got.get(2)) {
            line(l);
        }
        List<Value> shown = new ArrayList<>();
        if (vars == null) {
            line("    no local variable information");
        } else {
            shown = showVariables(vars, values);
        }
        if (renderers) {
            render(t, self, shown);
        }
    }

    // showVariables prints each variable and its value, and returns the values.
    List<Value> showVariables(List<LocalVariable> vars, Map<LocalVariable, Value> values) {
        List<Value> shown = new ArrayList<>();
        for (LocalVariable v : vars) {
            line("    " + v.name() + " : " + v.typeName() + " = " + value(values.get(v)));
            shown.add(values.get(v));
        }
        return shown;
    }

    // render shows this and the objects among the locals as an IDE's default
    // renderers do: each invocation runs code in the debuggee (toString may
    // change the object), so what was read before it is read again after.
    void render(ThreadReference t, ObjectReference self, List<Value> shown) throws Exception {
        if (self != null) {
            line("    render this = " + rendered(t, self));
            Field shapes = self.referenceType().fieldByName("shapes");
            if (shapes != null && self.getValue(shapes) instanceof ObjectReference) {
                line("    render this.shapes = " + rendered(t, (ObjectReference) self.getValue(shapes)));
            }
        }
        for (Value v : shown) {
            if (v instanceof ObjectReference && !(v instanceof StringReference) && !(v instanceof ArrayReference)) {
                line("    render local = " + rendered(t, (ObjectReference) v));
            }
        }
        StackFrame top = t.frame(0); // the frames again: the thread ran
        line("    after rendering at " + describe(top.location()));
    }

    // rendered returns what a default renderer shows of o: its size() if it
    // is a collection, its toString() if its class overrides it, else its type.
    String rendered(ThreadReference t, ObjectReference o) throws Exception {
        ReferenceType type = o.referenceType();
        if (type instanceof ClassType && implementsCollection((ClassType) type)) {
            Method size = ((ClassType) type).concreteMethodByName("size", "()I");
            return "size " + value(o.invokeMethod(t, size, List.of(), 0));
        }
        if (type instanceof ClassType) {
            Method toString = ((ClassType) type).concreteMethodByName("toString", "()Ljava/lang/String;");
            if (toString != null && !toString.declaringType().name().equals("java.lang.Object")) {
                return value(o.invokeMethod(t, toString, List.of(), 0));
            }
        }
        return "instance of " + type.name();
    }

    static boolean implementsCollection(ClassType type) {
        for (InterfaceType i : type.allInterfaces()) {
            if (i.name().equals("java.util.Collection")) {
                return true;
            }
        }
        return false;
    }

    // expand shows an object as an IDE's variables view does when `this` is
    // expanded: its class's details, then every field's value.
    void expand(ObjectReference self) throws Exception {
        for (String l : expanded(self)) {
            line(l);
        }
    }

    // expanded returns the lines of expand, the fields' values asked at
    // once with the class's details when in waves.
    List<String> expanded(ObjectReference self) throws Exception {
        List<String> lines = new ArrayList<>();
        ReferenceType type = self.referenceType();
        StringBuilder b = new StringBuilder("    this in ");
        try {
            b.append(type.sourceName());
        } catch (AbsentInformationException e) {
            b.append('?');
        }
        if (type instanceof ClassType) {
            ClassType c = (ClassType) type;
            b.append(" extends ").append(c.superclass() == null ? "nothing" : c.superclass().name());
            for (InterfaceType i : c.interfaces()) {
                b.append(" implements ").append(i.name());
            }
        }
        lines.add(b.toString());
        List<Field> fields = type.visibleFields();
        Map<Field, Value> values = self.getValues(fields);
        for (Field f : fields) {
            lines.add("    this." + f.name() + " : " + f.typeName() + " = " + value(values.get(f)));
        }
        return lines;
    }

    // arrayLines returns the lines of this's expanded arrays (see arrays in
    // the usage): this's fields at once, then the elements of recent, and
    // the list shapes' fields at once, then the elements of its backing
    // array.
    List<String> arrayLines(ObjectReference self) throws Exception {
        List<String> lines = new ArrayList<>();
        ReferenceType type = self.referenceType();
        Map<Field, Value> fields = self.getValues(type.visibleFields());
        Value recent = fields.get(type.fieldByName("recent"));
        if (recent instanceof ArrayReference) {
            ArrayReference a = (ArrayReference) recent;
            lines.add("    this.recent = " + elements(a));
            // A user edits the first element in the view and sees the
            // array again: a reply cached from before the edit shows.
            int first = ((IntegerValue) a.getValue(0)).value();
            a.setValue(0, a.virtualMachine().mirrorOf(first + 1));
            lines.add("    this.recent after setting [0] = " + elements(a));
        }
        Value shapes = fields.get(type.fieldByName("shapes"));
        if (shapes instanceof ObjectReference) {
            ObjectReference list = (ObjectReference) shapes;
            ReferenceType listType = list.referenceType();
            Map<Field, Value> raw = list.getValues(listType.visibleFields());
            Value data = raw.get(listType.fieldByName("elementData"));
            lines.add("    this.shapes.size = " + value(raw.get(listType.fieldByName("size"))));
            if (data instanceof ArrayReference) {
                lines.add("    this.shapes.elementData = " + elements((ArrayReference) data));
            }
        }
        return lines;
    }

    // elements shows an array's elements, each as value does (nothing read
    // of an empty array: Eclipse's JDI refuses getValues() of one).
    static String elements(ArrayReference a) {
        if (a.length() == 0) {
            return "[]";
        }
        StringBuilder b = new StringBuilder("[");
        for (Value v : a.getValues()) {
            b.append(b.length() > 1 ? ", " : "").append(value(v));
        }
        return b.append("]").toString();
    }

    static String describe(Location loc) {
        String source;
        try {
            source = loc.sourceName();
        } catch (AbsentInformationException e) {
            source = "?";
        }
        return loc.declaringType().name() + "." + loc.method().name() + "(" + source + ":" + loc.lineNumber() + ")";
    }

    static String value(Value v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof StringReference) {
            return "\"" + ((StringReference) v).value() + "\"";
        }
        if (v instanceof PrimitiveValue) {
            return v.toString();
        }
        if (v instanceof ArrayReference) {
            return "array of " + ((ArrayReference) v).length();
        }
        return "instance of " + v.type().name();
    }
}
