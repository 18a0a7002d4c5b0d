package trace

import (
	"encoding/binary"
	"go/token"
	"hash/fnv"
	"sync"
	"time"
)

// SiteID names a static site: one instrumented statement, condition, call or
// function. Site 0 is unused.
type SiteID int32

// FrameID names one activation of an instrumented function. Frame 0 means
// "no frame" (e.g. a location that is not a frame-local variable).
type FrameID int32

// Trace is one decoded traced run. Events are in the single global order in
// which they completed; walk them backwards with Def and LastDef.
type Trace struct {
	Sites  []Site  // indexed by SiteID; Sites[0] is a zero placeholder
	Events []Event // in execution order; Events[i].Index == i
	Frames []Frame // indexed by FrameID; Frames[0] is a zero placeholder

	// Truncated is set when the trace buffer filled up (recording stopped)
	// or the process died in the middle of writing a record.
	Truncated bool
	// Wrapped is set when the run asked for its latest events and filled
	// the trace buffer: the events are the run's last ones, and what the
	// overwritten ones defined enters as input (frames that began before
	// are Frame.Cut).
	Wrapped bool
	// From is the event of the test function's frame at which the run
	// began recording (instrument.Config.From), 0 when it recorded from
	// its start; frames running then are Frame.Cut.
	From uint64
	// Marks places the run's first failures by the test function's
	// frame, whether or not the events themselves were recorded.
	Marks []FailMark
	// Skipped lists constructs or files left uninstrumented; their effects
	// appear as inputs (reads whose value no traced event defined).
	Skipped []Skip
	// Unentered counts the functions left uninstrumented because the
	// probe run never entered them (instrument.Config.Probe); should the traced run
	// enter one after all, it is observed at its calls.
	Unentered int
	// Result is the outcome of the traced test run (set by instrument.Run).
	Result RunResult
	// Intervention counts what the run's intervention hooks did.
	Intervention Intervened
	// Static lists, in address order, where the test binary holds its
	// static data: type descriptors, constants, global variables. The
	// linker places objects there, not the run, so an address in them
	// moves with any change to the binary. Nil when the binary could not
	// say (set by instrument).
	Static []Span

	// The def-use index, built on first use (see index), also for traces
	// made in memory.
	once    sync.Once
	defs    map[Loc][]int       // location -> indices of events writing it, ascending
	callee  map[int]FrameID     // Call event -> the frame it entered
	byFrame map[FrameID][]int   // each frame's events, in order
	moved   map[uint64][]int    // page (address>>12) -> events with a move into it, ascending
	structs map[uint64][]int    // page (address>>12) -> events writing a struct in memory over it, ascending
	slices  map[uint64][]int    // page (address>>12) -> events recording a slice whose backing array starts in it, ascending
	ext     map[string][]SiteID // file -> its SiteCallExt sites, by start (then by ID)

	// sliceOnce builds slices, on the first element read that needs it.
	sliceOnce sync.Once
}

// Functions returns the qualified names of the functions the trace's
// build instrumented (their Site.Func), closures included.
func (t *Trace) Functions() map[string]bool {
	fs := map[string]bool{}
	for _, s := range t.Sites {
		if s.Kind == SiteFunc {
			fs[s.Func] = true
		}
	}
	return fs
}

// RunResult is what the traced `go test` reported.
type RunResult struct {
	Passed   bool          // the test ran and passed
	Failed   bool          // the test ran and failed (including panics and timeouts)
	ExitCode int           // exit status of `go test`
	Output   string        // combined stdout and stderr
	Duration time.Duration // wall time of the whole `go test` invocation
}

// Intervened counts what the intervention hooks of one run did (see
// instrument.RunOptions.Intervene).
type Intervened struct {
	Applied uint64 // serial locks taken, branches forced, delays slept, yields made
	Expired uint64 // serial waits given up after the expiry
	// Waited is the time goroutines spent waiting for serial locks, in
	// all: the wait a placebo delay repeats without the exclusion.
	Waited time.Duration
	// Perturbed counts the pauses a schedule perturbation made; they are
	// not interventions, and Applied does not count them.
	Perturbed uint64
}

// FailMark places a failure by the events the test function's frame had
// made when it happened: a failure event at Site (t.Errorf, panic(…)), or,
// with Site 0, the frame leaving by a panic.
type FailMark struct {
	Site   SiteID
	Events uint64
}

// Skip records one construct or file the tracer did not instrument.
type Skip struct {
	Pos    Pos
	Reason string
}

// Pos is a source range; File is relative to the module root, with slashes.
type Pos struct {
	File            string
	Line, Col       int
	EndLine, EndCol int
}

func (p Pos) String() string {
	return p.File + ":" + itoa(p.Line) + ":" + itoa(p.Col)
}

// Encloses reports whether q lies within p, bounds included.
func (p Pos) Encloses(q Pos) bool {
	return p.File == q.File && !p.startsAfter(q) &&
		(q.EndLine < p.EndLine || q.EndLine == p.EndLine && q.EndCol <= p.EndCol)
}

// startsAfter reports whether p starts after q does.
func (p Pos) startsAfter(q Pos) bool {
	return p.Line > q.Line || p.Line == q.Line && p.Col > q.Col
}

// SiteKind classifies a static site.
type SiteKind uint8

const (
	SiteNone       SiteKind = iota
	SiteFunc                // function or closure: Entry/Exit events
	SiteReturn              // return statement (and the implicit end of a body)
	SiteCall                // call of a function that may be instrumented (Call event precedes its Entry)
	SiteCallExt             // call of an uninstrumented function (CallExt event after it returned)
	SiteAssign              // x = e, x, y = e1, e2
	SiteDefine              // x := e, var x = e
	SiteIncDec              // x++ / x-- (Op holds token.INC / token.DEC)
	SiteOpAssign            // x op= e (Op holds the binary operator, e.g. token.ADD)
	SiteIf                  // if condition
	SiteFor                 // for condition (one Branch per evaluation)
	SiteSwitchCase          // case condition of a tagless switch (Branch: matched or not)
	SiteSwitch              // expression or type switch with a tag (Branch value: Int index of the clause taken, -1 none; Reads hold the tag)
	SiteSelect              // select (Branch value: Int index of the clause taken)
	SiteRange               // range iteration (Branch true per iteration, false at the end)
	SiteAndAnd              // && : Branch with the left operand's value
	SiteOrOr                // || : Branch with the left operand's value
	SiteFail                // t.Error*/Fatal*/Fail*/FailNow, testify assert/require, panic(...)
	SiteGlobal              // package-level variable initialiser (an Assign event)
	SiteStmt                // other statement: only marks the current statement (for runtime panics)
)

var siteKindNames = [...]string{"none", "func", "return", "call", "callext", "assign", "define",
	"incdec", "opassign", "if", "for", "case", "switch", "select", "range", "&&", "||", "fail",
	"global", "stmt"}

func (k SiteKind) String() string {
	if int(k) < len(siteKindNames) {
		return siteKindNames[k]
	}
	return "site(" + itoa(int(k)) + ")"
}

// Site is the static description of a site, from the site table.
type Site struct {
	ID   SiteID
	Kind SiteKind
	Pos  Pos
	Text string // source text of the statement / condition / call
	Func string // qualified name of the enclosing function ("pkg.F", "pkg.(*T).M", "pkg.F.func1")
	// Op is the operator of an IncDec/OpAssign site, else token.ILLEGAL.
	Op token.Token
	// Operands describes, by slot, every location read or written at this site.
	Operands []Operand
	// Exprs are the expression shapes: for an assignment one per target (the
	// value written, x_k = [[Exprs[k]]]; for op-assign the whole `x op e`);
	// for a branch the condition (Exprs[0]); for a call the arguments; for a
	// return the results; for a fail site the call's arguments.
	Exprs []*Expr
	// Cases holds, for a SiteSwitch, the case expressions of each clause in
	// source order (nil for default; empty for a type switch's type clauses).
	Cases [][]*Expr
	// Callee is the qualified name of the statically known callee of a call or
	// fail site ("testing.(*common).Errorf", "github.com/stretchr/testify/assert.Equal"), else "".
	Callee string
}

// Operand describes one read or written location at a site.
type Operand struct {
	Slot  int
	Write bool   // a target of the site (assignment LHS, parameter, range variable)
	Text  string // source text ("sum", "p.x", "a[i]")
	Type  Type
	// Obj identifies a local never-address-taken variable (unique within the
	// site table); its identity is (frame, Obj, Path). Zero otherwise, and the
	// identity is recorded at run time (address or map entry) or is unknown.
	Obj int
	// Global marks a package-level variable: its identity is (frame 0, Obj,
	// Path) everywhere, and package initialisation events have frame 0.
	Global bool
	Path   string // field path / constant index below Obj (".x", "[2]"), "" for the whole variable
	// Elided marks a read the runtime does not record: the decoder rebuilds
	// it from the frame's last write of the local Obj (instrument/elide.go).
	Elided bool `json:",omitempty"`
	// Names gives, for a read through an index, selector or star
	// expression (xs[i], p.x, *p), the Obj of each never-address-taken
	// local its identifiers denote, keyed by name: the type checker's
	// resolution, which the text alone leaves open when a local of the
	// same name is shadowed. Nil for other operands.
	Names map[string]int `json:",omitempty"`
	// Field identifies, for a location in a struct field (p.x, p.xs[i],
	// (*p).x), the field its last selector selects, as the type checker
	// resolves it: every operand of the site table that selects that field
	// of that struct type has the same Field, whatever variable, embedding
	// or generic instance it goes through. Zero for other operands.
	Field int `json:",omitempty"`
	// RecvFrom marks, at a traced call of a method with a value receiver,
	// where the receiver is copied from: a read of its address (&tbl for
	// tbl.Cursor() when tbl's writes are recorded by address, p for
	// p.Cursor() with p a pointer), or, for a local of the frame or a
	// global, that variable's Obj and Path, with nothing read.
	RecvFrom bool `json:",omitempty"`
	// InCopy marks a location below a copy the function's entry made of
	// what its call passed: a value receiver (Param 0) or parameter
	// Param-1, of struct or array type. Obj is the copy, Path a field or
	// constant index of it, and Offset the byte offset of Path in it. The
	// caller's last write of that part of what it passed (the receiver the
	// call names, RecvFrom, or the argument read) is where the value came
	// from.
	InCopy bool `json:",omitempty"`
	Param  int  `json:",omitempty"`
	Offset int  `json:",omitempty"`
}

// TypeKind classifies a Go type for the encoder.
type TypeKind uint8

const (
	TypeOther TypeKind = iota
	TypeBool
	TypeInt // signed integer
	TypeUint
	TypeFloat
	TypeComplex
	TypeString
	TypePointer // also unsafe.Pointer
	TypeSlice
	TypeMap
	TypeChan
	TypeFunc
	TypeInterface
	TypeStruct
	TypeArray
)

// Type is the encoder's view of a Go type.
type Type struct {
	Kind TypeKind
	Bits int    // width for Int/Uint/Float/Complex (int and uint are 64 on 64-bit)
	Name string // types.TypeString, package-qualified
	// Consts names the values of a named integer type that its package
	// declares constants of (reflect.Kind's reflect.Struct), so that a
	// report shows the name the code uses; nil for other types.
	Consts *Consts `json:",omitempty"`
	// Layout places the fields of a struct, or the elements of an array,
	// whose values are recorded by their bytes (at most MaxStructSize of
	// them), so that a report can show them; nil for other types, and for
	// a type whose layout depends on a type parameter.
	Layout *Layout `json:",omitempty"`
}

// MaxStructSize is the largest struct or array, in bytes, whose values
// are recorded by their bytes; a larger one is recorded as opaque.
const MaxStructSize = 32

// Layout is a small struct type's fields, or a small array type's
// elements, as its recorded bytes hold them.
type Layout struct {
	Size   int
	Fields []Field
}

// Field is one field of a Layout: its name ("" for an array element), its
// byte offset and its type.
// A field's Type has the Kind, Bits and Consts of a bool or number, the
// Kind alone for a string or pointer-like field, and a Layout for a struct
// field the reader can be shown.
type Field struct {
	Name   string
	Offset int
	Type   Type
}

// Consts are the named constants of one integer type: Names[i] has the
// value Values[i] (as the value's bits), one name per value.
type Consts struct {
	Values []uint64
	Names  []string
}

// Name is the constant named for bits, "" when none is.
func (c *Consts) Name(bits uint64) string {
	if c == nil {
		return ""
	}
	for i, v := range c.Values {
		if v == bits {
			return c.Names[i]
		}
	}
	return ""
}

// ExprOp is the shape of an expression node.
type ExprOp uint8

const (
	ExprOpaque ExprOp = iota // not modelled: encode point-wise over the site's reads
	ExprConst                // a constant: Const
	ExprRead                 // the value read in operand slot Slot
	ExprUnary                // Tok X (token.SUB, token.XOR, token.NOT, token.ADD)
	ExprBinary               // X Tok Y (arithmetic, comparison, &&, ||, shifts)
	ExprCall                 // result of the call at site Call (Slot: result index)
	ExprLen                  // len(X) / cap(X) (Tok: token.IDENT for len, token.ILLEGAL for cap)
	ExprConv                 // conversion of X to Type
)

// Expr is an expression tree over operand reads. Leaves are constants,
// operand reads (by slot) and call results; anything else is Opaque with Args
// holding the modelled sub-expressions it depends on.
type Expr struct {
	Op    ExprOp
	Tok   token.Token
	X, Y  *Expr
	Args  []*Expr
	Slot  int    // ExprRead: operand slot; ExprCall: result index
	Call  SiteID // ExprCall: the call's site
	Const Value  // ExprConst
	Type  Type
	Text  string
	// Decl is where a named constant of the module is declared (ExprConst
	// only), nil for a literal or a constant from elsewhere.
	Decl *Pos `json:",omitempty"`
}

// EventKind classifies a dynamic event.
type EventKind uint8

const (
	EvNone    EventKind = iota
	EvEntry             // function entry; Writes are the parameters (and receiver)
	EvReturn            // normal return; Values are the results, Reads the reads in the result expressions
	EvPanic             // abnormal exit of the frame (panic or runtime.Goexit); Site is the statement executing
	EvCall              // call of a possibly instrumented function; Reads are the reads in the arguments
	EvCallExt           // call of an uninstrumented function, after it returned; Values are the results
	EvAssign            // assignment/define/inc-dec/op-assign/global init; Writes are the written locations
	EvBranch            // branch; Values[0] is the outcome (Bool, or Int clause index)
	EvFail              // failure point reached (before the failing call runs); Reads are the argument reads
)

var eventKindNames = [...]string{"none", "entry", "return", "panic", "call", "callext", "assign", "branch", "fail"}

func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "event(" + itoa(int(k)) + ")"
}

// PanicKind says what made a frame exit abnormally (EvPanic), as the
// runtime saw it while the frame's deferred calls ran.
type PanicKind uint8

const (
	PanicNone     PanicKind = iota // runtime.Goexit (t.FailNow), or not known
	PanicNilDeref                  // nil pointer dereference
	PanicIndex                     // index or slice bounds out of range
	PanicRuntime                   // another runtime error (division by zero, nil map, …)
	PanicUser                      // a call of panic
)

var panicKindNames = [...]string{"none", "nil dereference", "index out of range", "runtime error", "panic"}

func (k PanicKind) String() string {
	if int(k) < len(panicKindNames) {
		return panicKindNames[k]
	}
	return "panic(" + itoa(int(k)) + ")"
}

// Event is one dynamic event.
type Event struct {
	Index  int
	Kind   EventKind
	Panic  PanicKind // of an EvPanic: what panicked
	Site   SiteID
	Frame  FrameID
	Reads  []Item  // operand reads in evaluation order (a slot may be missing if short-circuited)
	Writes []Item  // written locations with the value written
	Values []Value // kind-specific values (see EventKind)
	// Moves are the blocks of memory the event copied as they were
	// (append into a new array, append(s, t...), copy), before its writes.
	Moves []Move
}

// Move is a copy of Len bytes from address Src to address Dst: a read of
// the destination is defined by what defined the source before the move.
type Move struct {
	Src, Dst, Len uint64
}

// Item is one operand read or write.
type Item struct {
	Slot  int
	Value Value
	Loc   Loc
}

// Read returns the read of operand slot, if recorded.
func (e *Event) Read(slot int) (Item, bool) {
	for _, it := range e.Reads {
		if it.Slot == slot {
			return it, true
		}
	}
	return Item{}, false
}

// Write returns the write of operand slot, if recorded.
func (e *Event) Write(slot int) (Item, bool) {
	for _, it := range e.Writes {
		if it.Slot == slot {
			return it, true
		}
	}
	return Item{}, false
}

// LocKind classifies a location identity.
type LocKind uint8

const (
	LocNone  LocKind = iota // unknown identity: treat the read as an input
	LocLocal                // (Frame, Obj, Path): a never-address-taken local
	LocAddr                 // Addr: a memory address (heap, global, element, captured variable)
	LocMap                  // (Addr = map pointer, Key)
)

// Loc is the identity of a location. Locs are comparable; equal Locs are
// the same location.
type Loc struct {
	Kind  LocKind
	Frame FrameID
	Obj   int
	Path  string
	Addr  uint64
	Key   uint64 // LocMap: the key's digest (Value.digest)
	// KeyKind is a LocMap's key's kind: the digest of a boolean, number
	// or string key is the same in every run, that of a pointer is not.
	KeyKind ValueKind
}

// StableKey reports whether l is a map entry whose key's digest names the
// same key in every run (a boolean, number or string key), so that the
// entry's reads in two runs can be matched by it.
func (l Loc) StableKey() bool {
	if l.Kind != LocMap {
		return false
	}
	switch l.KeyKind {
	case ValBool, ValInt, ValUint, ValFloat, ValComplex, ValString:
		return true
	}
	return false
}

// ValueKind classifies a recorded value.
type ValueKind uint8

const (
	ValNone    ValueKind = iota // not recorded
	ValBool                     // Bits 0/1
	ValInt                      // Bits = two's complement int64
	ValUint                     // Bits
	ValFloat                    // Bits = math.Float64bits (float32 widened)
	ValComplex                  // Bits = real bits, Hash = imaginary bits
	ValString                   // Len, Hash (FNV-1a 64), Prefix (first bytes)
	ValPointer                  // Bits = address (pointer, map, chan, func, unsafe.Pointer); Nil
	ValSlice                    // Bits = data pointer, Len, Cap; Nil; a []byte also has Hash and Prefix as a string, a non-empty slice of booleans, numbers or strings Hash its elements' (Prefix empty, or for at most three numbers or strings their text after elemsMark, value.go; Hash 0 for other slices)
	ValIface                    // Bits = dynamic type word, Hash = data word; Nil; Prefix the dynamic type's name when the runtime gave it (decode.go readTypes); for an error of errors.New or fmt.Errorf, or a reflect.Type, Len and Cap its message's (the type's name's) length and hash, and Prefix ends in a NUL and its first bytes; for a small struct or array held, Len its size, Cap structMark and Prefix the name, layout and bytes (value.go boxedMark)
	ValOpaque                   // struct/array or other value: nothing recorded; a reflect.Value is described (decode.go reflectValue); a struct of at most MaxStructSize bytes of a known Layout has Len its size, Prefix its bytes (of a read or write, only what a reader is shown of them, and Bits 1 when that is all of them, 2 when it is not), Cap a mark and Hash 0 (decode.go structValue, masked): the comparison of two runs compares such values (SameStruct); to the other analyses it is still opaque
	ValTime                     // time.Time: Bits, Len its wall and ext words (time.Time's own); Cap its zone word, Prefix the zone's name (decode.go); Hash of them
	valReflect                  // a reflect.Value as recorded, decoded as a described ValOpaque
)

// Value is a recorded value. Values are comparable.
type Value struct {
	Kind     ValueKind
	Bits     uint64
	Len, Cap int64
	Hash     uint64
	Prefix   string
	Nil      bool
}

// digest condenses the value into a word that names it as a map key: equal
// values have equal digests, and a string is named by its length and hash.
// A location holds the digest rather than the value, which keeps every
// recorded item small.
func (v Value) digest() uint64 {
	h := fnv.New64a()
	var b [33]byte
	b[0] = byte(v.Kind)
	if v.Nil {
		b[0] |= 0x80
	}
	binary.LittleEndian.PutUint64(b[1:], v.Bits)
	binary.LittleEndian.PutUint64(b[9:], uint64(v.Len))
	binary.LittleEndian.PutUint64(b[17:], uint64(v.Cap))
	binary.LittleEndian.PutUint64(b[25:], v.Hash)
	h.Write(b[:33])
	return h.Sum64()
}

// Int returns the value as a signed integer (ints, uints, bools).
func (v Value) Int() int64 { return int64(v.Bits) }

// Bool reports whether a ValBool value is true.
func (v Value) Bool() bool { return v.Bits != 0 }

// Frame is one activation of an instrumented function.
type Frame struct {
	ID        FrameID
	Func      SiteID  // the SiteFunc site
	Goroutine int64   // runtime goroutine identity (stable for the goroutine's life)
	Parent    FrameID // the instrumented frame below it on the same goroutine, 0 if none
	Call      int     // index of the Call event in Parent that made it, -1 if unknown (callbacks, tests)
	Entry     int     // index of the Entry event
	Exit      int     // index of the Return or Panic event, -1 if the frame never exited
	// Cut marks a frame that entered before a wrapped trace's window
	// (Trace.Wrapped): its Entry event stands where its first event in
	// the window is, with no parameters, and its caller is unknown.
	Cut bool
}
