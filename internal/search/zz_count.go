//go:build ignore

package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

func f(s string) string {
	for {
		t := norm.NFKD.String(s)
		t = cases.Fold().String(t)
		t = norm.NFKD.String(t)
		t = strings.Map(func(r rune) rune {
			if unicode.Is(unicode.Mn, r) {
				return -1
			}
			return r
		}, t)
		if t == s {
			return t
		}
		s = t
	}
}

func main() {
	n, multi, empty, size := 0, 0, 0, 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF || r >= 0xAC00 && r <= 0xD7A3 {
			continue
		}
		s := string(r)
		t := f(s)
		if t != s {
			n++
			size += len(t)
			if utf8.RuneCountInString(t) > 1 {
				multi++
			}
			if t == "" {
				empty++
			}
		}
	}
	fmt.Println(n, multi, empty, size)
}
