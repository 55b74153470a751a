package adb

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jdwpscache/scache/ddm"
	"github.com/jdwpscache/scache/jdwp"
	"google.golang.org/protobuf/encoding/protowire"
)

// An App is a process of a device that a debugger or profiler may attach
// to, as the device's track-app service describes it (Android 12 and
// later) or as its VM says in DDM on older devices.
type App struct {
	PID int
	// Name is the process name: the app's package name, or "pkg:suffix"
	// for its other processes. Empty while unknown.
	Name         string
	Debuggable   bool
	Profileable  bool
	Architecture string   // "arm64", "x86_64"; empty when unknown
	Packages     []string // with the app_info feature (Android 15 and later)
	// WaitingForDebugger: the app waits for a debugger before it goes on
	// (app_info).
	WaitingForDebugger bool
}

// Device features that decide how apps are listed.
const (
	// FeatureTrackApp: the device offers the track-app service.
	FeatureTrackApp = "track_app"
	// FeatureAppInfo: its track-app entries carry names and packages.
	FeatureAppInfo = "app_info"
)

// Fields of track-app's AppProcesses and ProcessEntry messages
// (adb's proto/app_processes.proto).
const (
	fieldProcess            = 1 // AppProcesses.process
	fieldPID                = 1
	fieldDebuggable         = 2
	fieldProfileable        = 3
	fieldArchitecture       = 4
	fieldProcessName        = 6
	fieldPackageNames       = 7
	fieldWaitingForDebugger = 8
)

// ParseAppProcesses decodes one track-app message (an AppProcesses
// protocol buffer) into its processes, sorted by name and pid. Fields it
// does not know are skipped; a malformed message is an error.
func ParseAppProcesses(b []byte) ([]App, error) {
	var apps []App
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		if num != fieldProcess || typ != protowire.BytesType {
			return nil
		}
		a, err := parseProcessEntry(v)
		if err != nil {
			return err
		}
		apps = append(apps, a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("adb: track-app: %w", err)
	}
	sortApps(apps)
	return apps, nil
}

func parseProcessEntry(b []byte) (App, error) {
	var a App
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == fieldPID && typ == protowire.VarintType:
			a.PID = int(int64(n))
		case num == fieldDebuggable && typ == protowire.VarintType:
			a.Debuggable = n != 0
		case num == fieldProfileable && typ == protowire.VarintType:
			a.Profileable = n != 0
		case num == fieldWaitingForDebugger && typ == protowire.VarintType:
			a.WaitingForDebugger = n != 0
		case num == fieldArchitecture && typ == protowire.BytesType:
			a.Architecture = string(v)
		case num == fieldProcessName && typ == protowire.BytesType:
			a.Name = string(v)
		case num == fieldPackageNames && typ == protowire.BytesType:
			a.Packages = append(a.Packages, string(v))
		}
		return nil
	})
	return a, err
}

// eachField calls f with each field of a protocol buffer message: its
// number and wire type, and its bytes (length-delimited) or value (varint,
// fixed).
func eachField(b []byte, f func(protowire.Number, protowire.Type, []byte, uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x32 uint32
			x32, n = protowire.ConsumeFixed32(b)
			x = uint64(x32)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}

// AppendAppProcesses encodes apps as one track-app message (what a device
// sends after its hex length), for emulated devices.
func AppendAppProcesses(b []byte, apps []App, appInfo bool) []byte {
	for _, a := range apps {
		var e []byte
		e = protowire.AppendTag(e, fieldPID, protowire.VarintType)
		e = protowire.AppendVarint(e, uint64(int64(a.PID)))
		e = appendBool(e, fieldDebuggable, a.Debuggable)
		e = appendBool(e, fieldProfileable, a.Profileable)
		e = protowire.AppendTag(e, fieldArchitecture, protowire.BytesType)
		e = protowire.AppendString(e, a.Architecture)
		if appInfo {
			e = protowire.AppendTag(e, fieldProcessName, protowire.BytesType)
			e = protowire.AppendString(e, a.Name)
			for _, p := range a.Packages {
				e = protowire.AppendTag(e, fieldPackageNames, protowire.BytesType)
				e = protowire.AppendString(e, p)
			}
			e = appendBool(e, fieldWaitingForDebugger, a.WaitingForDebugger)
		}
		b = protowire.AppendTag(b, fieldProcess, protowire.BytesType)
		b = protowire.AppendBytes(b, e)
	}
	return b
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b // proto3: false is not sent
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, 1)
}

// sortApps sorts by name, then pid (unnamed last).
func sortApps(apps []App) {
	sort.Slice(apps, func(i, j int) bool {
		a, b := apps[i], apps[j]
		if (a.Name == "") != (b.Name == "") {
			return b.Name == ""
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.PID < b.PID
	})
}

// Features returns the features the device advertises (host-serial:S:features).
func (c *Client) Features(ctx context.Context, sel Selector) ([]string, error) {
	req := "host:features"
	switch {
	case sel.Serial != "":
		req = "host-serial:" + sel.Serial + ":features"
	case sel.TransportID != 0:
		req = "host-transport-id:" + strconv.FormatInt(sel.TransportID, 10) + ":features"
	}
	s, err := c.query(ctx, req)
	if err != nil {
		return nil, err
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' }), nil
}

// TrackApp streams the device's track-app service: its debuggable and
// profileable processes each time they change. Only devices with
// FeatureTrackApp offer it; without FeatureAppInfo the entries carry no
// names. TrackApps names them either way.
func (c *Client) TrackApp(ctx context.Context, sel Selector) (<-chan []App, error) {
	cn, err := c.service(ctx, sel, "track-app")
	if err != nil {
		return nil, err
	}
	return stream(ctx, cn, func(b []byte) []App {
		apps, err := ParseAppProcesses(b)
		if err != nil {
			return nil // a malformed update: the next one replaces it
		}
		return apps
	})
}

// NameTimeout bounds how long AppName may hold a process's JDWP connection
// (a VM accepts one at a time) to learn its name.
const NameTimeout = 3 * time.Second

// preInitialized is the name an Android VM gives in its HELO before the
// process has become an app; APNM tells the name later.
const preInitialized = "<pre-initialized>"

// AppName learns a process's name as ddmlib does: over jdwp:<pid>, the
// JDWP handshake and a DDM HELO, whose reply carries the name (or, for a
// process not yet an app, a later APNM). It holds the connection at most
// NameTimeout and closes it. A VM that does not speak DDM gives
// ddm.ErrNotDDMAware.
func (c *Client) AppName(ctx context.Context, sel Selector, pid int) (App, error) {
	ctx, cancel := context.WithTimeout(ctx, NameTimeout)
	defer cancel()
	nc, err := c.JDWP(ctx, sel, pid)
	if err != nil {
		return App{}, err
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	if err := jdwp.DebuggerHandshake(nc, NameTimeout); err != nil {
		return App{}, fmt.Errorf("adb: naming pid %d: %w", pid, err)
	}
	dc := ddm.NewClient(jdwp.NewConnFrom(nc, ddm.FirstToolID))
	defer dc.Close()
	names := make(chan string, 1)
	dc.Handle(ddm.TypeAPNM, func(ch ddm.Chunk, _ bool, _ uint32) {
		var a ddm.AppName
		if ddm.Decode(ch, &a) == nil {
			select {
			case names <- a.Name:
			default:
			}
		}
	})
	h, err := dc.Hello(ctx)
	if err != nil {
		return App{}, fmt.Errorf("adb: naming pid %d: %w", pid, err)
	}
	app := App{PID: pid, Name: h.AppName, Debuggable: true, Architecture: abiArchitecture(h.ABI)}
	if h.PackageName != "" {
		app.Packages = []string{h.PackageName}
	}
	for app.Name == "" || app.Name == preInitialized {
		select {
		case app.Name = <-names:
		case <-ctx.Done():
			return App{}, fmt.Errorf("adb: naming pid %d: no name within %v", pid, NameTimeout)
		}
	}
	return app, nil
}

// abiArchitecture returns the ISA of a HELO's ABI field ("64-bit (arm64)"
// → "arm64").
func abiArchitecture(abi string) string {
	if i, j := strings.Index(abi, "("), strings.LastIndex(abi, ")"); i >= 0 && j > i {
		return abi[i+1 : j]
	}
	return abi
}

// TrackApps streams the device's debuggable and profileable processes with
// their names each time they change, sorted by name, until ctx ends or the
// device goes; the channel is closed then. Where the device offers
// track-app with app_info, the names come with the list; elsewhere each
// new process is named once by AppName, several at once (a process that
// cannot be named, a VM without DDM say, is listed with an empty name).
func (c *Client) TrackApps(ctx context.Context, sel Selector) (<-chan []App, error) {
	features, err := c.Features(ctx, sel)
	if err != nil {
		return nil, err
	}
	trackApp := slices.Contains(features, FeatureTrackApp)
	var updates <-chan []App
	if trackApp {
		updates, err = c.TrackApp(ctx, sel)
	} else {
		var pids <-chan []int
		pids, err = c.TrackJDWP(ctx, sel)
		updates = appsOf(ctx, pids)
	}
	if err != nil {
		return nil, err
	}
	named := trackApp && slices.Contains(features, FeatureAppInfo)
	out := make(chan []App)
	go func() {
		defer close(out)
		known := map[int]App{} // pid → what AppName learned
		// needsName reports whether a's name is AppName's to learn.
		needsName := func(a App) bool { return a.Debuggable && !(named && a.Name != "") }
		for apps := range updates {
			current := map[int]bool{}
			var unnamed []int
			for _, a := range apps {
				current[a.PID] = true
				if _, ok := known[a.PID]; !ok && needsName(a) {
					unnamed = append(unnamed, a.PID)
				}
			}
			if len(unnamed) > 0 {
				// An error leaves a process unnamed, and is not retried.
				maps.Copy(known, c.nameAll(ctx, sel, unnamed))
				if ctx.Err() != nil {
					return
				}
			}
			for i := range apps {
				a := &apps[i]
				if !needsName(*a) {
					continue
				}
				k := known[a.PID]
				a.Name = k.Name
				if a.Architecture == "" {
					a.Architecture = k.Architecture
				}
				if len(a.Packages) == 0 {
					a.Packages = k.Packages
				}
			}
			for pid := range known {
				if !current[pid] {
					delete(known, pid) // pids are reused: a new process is named again
				}
			}
			sortApps(apps)
			select {
			case out <- apps:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// namesAtOnce bounds how many processes TrackApps names at once. A device
// may list dozens of debuggable processes (every app of an emulator's
// debuggable image), and a VM whose one JDWP connection a debugger holds
// may keep AppName waiting its whole NameTimeout: named one after another,
// a few such VMs would hold the list back for as many timeouts.
const namesAtOnce = 8

// nameAll names the processes pids with AppName, namesAtOnce at a time,
// and returns what it learned of each (an App without a name where AppName
// failed).
func (c *Client) nameAll(ctx context.Context, sel Selector, pids []int) map[int]App {
	out := make(map[int]App, len(pids))
	var mu sync.Mutex
	var wg sync.WaitGroup
	slots := make(chan struct{}, namesAtOnce)
	for _, pid := range pids {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			a, _ := c.AppName(ctx, sel, pid)
			mu.Lock()
			out[pid] = a
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// appsOf turns track-jdwp's pid lists into unnamed debuggable apps.
func appsOf(ctx context.Context, pids <-chan []int) <-chan []App {
	out := make(chan []App)
	go func() {
		defer close(out)
		for list := range pids {
			apps := make([]App, len(list))
			for i, p := range list {
				apps[i] = App{PID: p, Debuggable: true}
			}
			select {
			case out <- apps:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
