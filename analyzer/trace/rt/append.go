package rt

// AP records the n elements that append added at the end of s as written
// at their addresses, in operand slots slot to slot+n-1, emits the
// assignment event of site and returns s. The arguments' reads, pushed
// while they were evaluated, go with the event.
func AP[S ~[]E, E any](f *F, site uint32, slot, n int, s S) S {
	for k := 0; k < n; k++ {
		i := len(s) - n + k
		WA(f, slot+k, s[i], &s[i])
	}
	emit(f, KAssign, site, false)
	return s
}
