package scache

import "github.com/jdwpscache/scache/jdwp"

// framePredictor learns, from the session's own Frames replies, how the VM
// numbers a thread's top frame from one suspension to the next, so that the
// top frame's this and locals can be asked for at the stop event, in the
// same round trip as the frames, instead of one round trip later.
//
// VMs number frames predictably: OpenJDK's JDWP agent (which ART also uses
// since Android 9) gives a frame an id made of its thread's frame generation,
// which moves on each time the thread resumes, and its depth; HotSpot 17
// gives successive top frames 0x20000, 0x30000, 0x40000, … Nothing of that
// is assumed here: the predictor learns the step per resume from two
// observations one resume apart, and predicts with it until a prediction
// proves wrong; from then on a step must be seen twice (three observations
// agree) before it is used, and predictions stop at each miss until then.
// A VM whose ids follow no step so costs one wrong prediction a session. A
// wrong prediction costs only waste: a reply is served only to a command
// with the same bytes in the same suspension epoch, whatever frame it names.
type framePredictor struct {
	step      uint64 // the top frame id's step per resume, 0 if none seen
	fits      int    // successive observations that fit step
	missedAny bool   // a prediction proved wrong this session: steps need confirming
	vmResumes uint64 // VirtualMachine.Resume commands sent
	threads   map[jdwp.ThreadID]*threadFrames
}

// threadFrames is what the predictor knows of one thread.
type threadFrames struct {
	top        jdwp.FrameID // the top frame last seen
	seenAt     uint64       // the thread's resumes when it was seen
	ownResumes uint64       // ThreadReference.Resume commands for it
}

// resumesOf returns how many times thread t was resumed in all.
func (fp *framePredictor) resumesOf(th *threadFrames) uint64 { return fp.vmResumes + th.ownResumes }

// resumed counts a resume: of every thread (VirtualMachine.Resume) or of t.
func (fp *framePredictor) resumed(t jdwp.ThreadID, all bool) {
	if all {
		fp.vmResumes++
		return
	}
	if th := fp.threads[t]; th != nil {
		th.ownResumes++
	}
}

// observe notes the top frame of thread t, from a Frames reply of a trusted
// suspension; mask keeps an id to the session's frame id size.
func (fp *framePredictor) observe(t jdwp.ThreadID, top jdwp.FrameID, mask uint64) {
	if fp.threads == nil {
		fp.threads = make(map[jdwp.ThreadID]*threadFrames)
	}
	th := fp.threads[t]
	if th == nil {
		if len(fp.threads) >= maxPredictedThreads {
			return
		}
		th = &threadFrames{seenAt: fp.vmResumes}
		fp.threads[t] = th
	} else if r := fp.resumesOf(th) - th.seenAt; r > 0 {
		delta := (uint64(top) - uint64(th.top)) & mask
		switch {
		case fp.step != 0 && delta == fp.step*r&mask:
			fp.fits++
		case r == 1 && delta != 0:
			fp.step, fp.fits = delta, 0 // a new step: to be seen again before it is used
		default:
			fp.step, fp.fits = 0, 0
		}
	}
	th.top, th.seenAt = top, fp.resumesOf(th)
}

// predict returns the id the top frame of thread t has now, if a step is
// known (once a prediction missed: if it has fit at least once since it was
// seen) and t resumed since.
func (fp *framePredictor) predict(t jdwp.ThreadID, mask uint64) (jdwp.FrameID, bool) {
	th := fp.threads[t]
	if th == nil || fp.step == 0 || fp.missedAny && fp.fits < 1 {
		return 0, false
	}
	r := fp.resumesOf(th) - th.seenAt
	if r == 0 {
		return 0, false
	}
	return jdwp.FrameID((uint64(th.top) + fp.step*r) & mask), true
}

// missed forgets the step after a wrong prediction: from now on a step is
// used only once confirmed.
func (fp *framePredictor) missed() { fp.fits, fp.missedAny = 0, true }

// maxPredictedThreads bounds the threads the predictor remembers.
const maxPredictedThreads = 4096

// frameIDMask returns the mask of a frame id of the session's size.
func frameIDMask(sizes jdwp.IDSizes) uint64 { return idMask(sizes.FrameID) }

// resumePredictor tells the predictor that the debugger let thread run,
// and with others the other threads too (onResumed).
func resumePredictor(s *Speculator, thread jdwp.ThreadID, others bool) {
	s.predictor.resumed(thread, others)
}

// resetPredictor forgets what the predictor learned.
func resetPredictor(s *Speculator) { s.predictor = framePredictor{} }
