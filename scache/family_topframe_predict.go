package scache

import "github.com/jdwpscache/scache/jdwp"

// framePredictor learns, from the session's own Frames replies, how the VM
// numbers a thread's top frame from one suspension to the next, so that the
// top frame's this and locals can be asked for at the stop event, in the
// same round trip as the frames, instead of one round trip later.
//
// VMs number frames predictably: OpenJDK's JDWP agent (which ART also uses
// since Android 9) gives a frame an id made of its thread's frame generation
// and its depth; HotSpot 17 gives successive top frames 0x20000, 0x30000,
// 0x40000, … The generation moves on each time the thread itself goes from
// suspended to running (threadControl.c: resumeThreadByNode and
// commonResumeList, when the thread's suspend count drops to 0): a
// VirtualMachine.Resume moves it on only for the threads it finds
// suspended, not for those left running by an EVENT_THREAD stop. So the
// predictor counts each thread's suspensions as the agent does (an event's
// suspend policy, Suspend commands, the suspension an invocation ends in)
// and moves its generation only when a resume takes the count to 0.
// Nothing of the numbering is assumed: the predictor learns the step per
// resume from two observations of a thread some resumes apart (the id
// moved by a multiple of their count), and predicts with it
// until a prediction proves wrong; from then on a step must be seen twice
// (three observations agree) before it is used, and predictions stop at
// each miss until then. A VM whose ids follow no step so costs one wrong
// prediction a session. A wrong prediction costs only waste: a reply is
// served only to a command with the same bytes in the same suspension
// epoch, whatever frame it names.
//
// A thread seen for the first time has no last id to step from. But the
// agent numbers generations from 0 when a thread starts, so the threads
// that start while a debugger is attached and stop at a breakpoint before
// anything suspended them (threads of a pool, under EVENT_THREAD) show
// the same first top frame id (0x0 on HotSpot 17). The predictor keeps
// the first id of the last thread it saw for the first time, and once the
// next one showed the same, predicts it for each new thread, until one
// shows another.
type framePredictor struct {
	step      uint64 // the top frame id's step per resume, 0 if none seen
	fits      int    // successive observations that fit step
	missedAny bool   // a prediction proved wrong this session: steps need confirming
	threads   map[jdwp.ThreadID]*threadFrames
	// firstTop is the first top frame id of the last thread seen for the
	// first time, firstAgreed whether the one before showed it too.
	firstTop    jdwp.FrameID
	firstAgreed bool
	// popStep is how far a pop moved a thread's top frame id the last time
	// it was seen (threadFrames.lost), popFits how many pops since moved
	// it as far: a pop's id is predicted once two agreed.
	popStep uint64
	popFits int
}

// threadFrames is what the predictor knows of one thread.
type threadFrames struct {
	top    jdwp.FrameID // the top frame last seen
	seenAt uint64       // resumes when it was seen
	// resumes counts the times the thread went from suspended to running;
	// suspends is its suspend count, as the agent keeps it.
	resumes  uint64
	suspends int
	// lost: the thread ran in a way the count does not follow (PopFrames:
	// the agent resumes and suspends it again on its own), so its next
	// top frame is not predicted by the step, and its next observation
	// starts over from where it stands without judging the step. If top
	// was seen in the suspension it ran from (seenAt is still resumes),
	// that observation teaches the pop's own step (framePredictor.popStep).
	lost bool
}

// resume takes one suspension off the thread, and counts a resume if
// that lets it run.
func (th *threadFrames) resume() {
	if th.suspends == 0 {
		return // running: a resume leaves it as it is
	}
	th.suspends--
	if th.suspends == 0 {
		th.resumes++
	}
}

// resumed counts a resume: of every thread (all) or of t alone.
func (fp *framePredictor) resumed(t jdwp.ThreadID, all bool) {
	if all {
		for _, th := range fp.threads {
			th.resume()
		}
		return
	}
	if th := fp.threads[t]; th != nil {
		th.resume()
	}
}

// suspended counts a suspension: of every thread (all) or of t alone.
func (fp *framePredictor) suspended(t jdwp.ThreadID, all bool) {
	if all {
		for _, th := range fp.threads {
			th.suspends++
		}
		return
	}
	if th := fp.threads[t]; th != nil {
		th.suspends++
	}
}

// observe notes the top frame of thread t, from a Frames reply of a trusted
// suspension; mask keeps an id to the session's frame id size. It reports
// whether that was the first sight of t, or the first since it ran
// uncounted (lose): a prediction for it was a new thread's first id or a
// pop's, whose miss leaves the step alone.
func (fp *framePredictor) observe(t jdwp.ThreadID, top jdwp.FrameID, mask uint64) (first bool) {
	if fp.threads == nil {
		fp.threads = make(map[jdwp.ThreadID]*threadFrames)
	}
	th := fp.threads[t]
	if th == nil {
		if len(fp.threads) >= maxPredictedThreads {
			return false
		}
		th = &threadFrames{}
		fp.threads[t] = th
		fp.firstAgreed = len(fp.threads) > 1 && top == fp.firstTop
		fp.firstTop, first = top, true
	} else if th.lost {
		if th.resumes == th.seenAt {
			if delta := (uint64(top) - uint64(th.top)) & mask; delta == fp.popStep {
				fp.popFits++
			} else {
				fp.popStep, fp.popFits = delta, 0
			}
		}
		th.lost, first = false, true // a miss of a pop's prediction leaves the step alone
	} else if r := th.resumes - th.seenAt; r > 0 {
		delta := (uint64(top) - uint64(th.top)) & mask
		switch {
		case fp.step != 0 && delta == fp.step*r&mask:
			fp.fits++
		case delta != 0 && delta%r == 0:
			fp.step, fp.fits = delta/r, 0 // a new step: to be seen again before it is used
		default:
			fp.step, fp.fits = 0, 0
		}
	}
	if th.suspends == 0 {
		th.suspends = 1 // its frames were answered: it is suspended, by what came before we counted
	}
	th.top, th.seenAt = top, th.resumes
	return first
}

// predict returns the id the top frame of thread t has now: for a thread
// seen before, if a step is known (once a prediction missed: if it has fit
// at least once since it was seen) and t resumed since; for a new one, the
// first id the last two new threads showed, if they agreed.
func (fp *framePredictor) predict(t jdwp.ThreadID, mask uint64) (jdwp.FrameID, bool) {
	th := fp.threads[t]
	if th == nil {
		if !fp.firstAgreed || len(fp.threads) >= maxPredictedThreads {
			return 0, false
		}
		return fp.firstTop, true
	}
	if fp.step == 0 || fp.missedAny && fp.fits < 1 || th.lost {
		return 0, false
	}
	r := th.resumes - th.seenAt
	if r == 0 {
		return 0, false
	}
	return jdwp.FrameID((uint64(th.top) + fp.step*r) & mask), true
}

// lose notes that thread t ran in a way the count does not follow
// (threadFrames.lost).
func (fp *framePredictor) lose(t jdwp.ThreadID) {
	if th := fp.threads[t]; th != nil {
		th.lost = true
	}
}

// predictPop returns the id the top frame of thread t has after a pop
// (lose), once two pops moved the id as far.
func (fp *framePredictor) predictPop(t jdwp.ThreadID, mask uint64) (jdwp.FrameID, bool) {
	th := fp.threads[t]
	if th == nil || !th.lost || th.resumes != th.seenAt || fp.popFits < 1 {
		return 0, false
	}
	return jdwp.FrameID((uint64(th.top) + fp.popStep) & mask), true
}

// missed forgets the step after a wrong prediction: from now on a step is
// used only once confirmed.
func (fp *framePredictor) missed() { fp.fits, fp.missedAny = 0, true }

// maxPredictedThreads bounds the threads the predictor remembers.
const maxPredictedThreads = 4096

// frameIDMask returns the mask of a frame id of the session's size.
func frameIDMask(sizes jdwp.IDSizes) uint64 { return idMask(sizes.FrameID) }

// resumePredictor tells the predictor that the debugger let thread run
// (0: every thread), and with others the other threads too (onResumed).
func resumePredictor(s *Speculator, thread jdwp.ThreadID, others bool) {
	s.predictor.resumed(thread, thread == 0 || others)
}

// suspendPredictor tells the predictor that thread was suspended (0:
// every thread), and with others every other thread too (onSuspended).
func suspendPredictor(s *Speculator, thread jdwp.ThreadID, others bool) {
	s.predictor.suspended(thread, thread == 0 || others)
}

// losePredictor tells the predictor that thread ran in a way no count
// follows (onRanUncounted): threadFrames.lost.
func losePredictor(s *Speculator, thread jdwp.ThreadID) { s.predictor.lose(thread) }

// resetPredictor forgets what the predictor learned.
func resetPredictor(s *Speculator) { s.predictor = framePredictor{} }
