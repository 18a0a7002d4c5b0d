package instrument

import (
	"cmp"
	"debug/elf"
	"slices"

	"github.com/culprit-dev/culprit/analyzer/trace"
)

// staticSpans lists the address ranges of bin's static data: the sections
// the loader maps that hold no code (read-only data, type descriptors,
// initialised and zeroed globals; thread-local sections are templates,
// not addresses). Only a binary loaded where the linker placed it (an ELF
// executable, not position-independent) has them at run time; for any
// other, nil, and the comparison goes without.
func staticSpans(bin string) []trace.Span {
	f, err := elf.Open(bin)
	if err != nil {
		return nil
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC {
		return nil
	}
	var out []trace.Span
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Flags&(elf.SHF_EXECINSTR|elf.SHF_TLS) != 0 || s.Addr == 0 || s.Size == 0 {
			continue
		}
		out = append(out, trace.Span{Lo: s.Addr, Hi: s.Addr + s.Size})
	}
	slices.SortFunc(out, func(a, b trace.Span) int { return cmp.Compare(a.Lo, b.Lo) })
	return out
}
