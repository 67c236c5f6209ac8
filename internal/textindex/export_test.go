package textindex

// SetDiffPage sets how many entries Diff reads a search, for the external tests; the
// returned function restores it.
func SetDiffPage(n int) (restore func()) {
	old := diffPage
	diffPage = n
	return func() { diffPage = old }
}
