package reporttest

import "reflect"

// Attacks are texts a forged report artifact carried: HTML that closes
// culprit's folds or loads an image, links to a host, entities that decode
// into a mention or a URL, a spoofed marker, and an escaped backtick that
// was taken for the start of a code span.
var Attacks = []string{
	"</details>",
	`<img src="//evil.example/p.png">`,
	"[click here](//evil.example/login)",
	`<a href="//evil.example/a">`,
	"&#64;alice",
	"https&#58;//evil.example/login",
	"<!-- culprit:report:culprit.other -->",
	"<!-- culprit:report -->",
	"see \\` @octo/owners \\` and \\` https://evil.example/login \\`",
	"@octocat see https://evil.example",
	"www.evil.example",
	"a@b.example",
	"&commat;alice &#x40;bob &sol;&sol;evil.example",
	"<https://evil.example>",
	"`` `@octocat` ``",
	"x\n```\n@octocat\n```\n",
	"\x000\x00 \x001\x00",
	"</summary></details><details><summary>",
	"$\\href{https://evil.example}{x}$",
	"-->",
}

// Fill sets every string reachable from v, which must be a pointer, to s:
// exported fields (the only ones JSON fills), elements of slices and arrays, keys and
// values of maps, and values of named string types. Nil pointers get a new
// value, nil slices one element and nil maps one entry, so that every
// field exists. Integers become 1 (a hunk id, a line, a count that agree
// with each other), floats 0.5 and booleans flag. A type met again inside
// itself (a tree's children) is filled two levels deep, then left nil.
func Fill(v any, s string, flag bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("reporttest.Fill: v must be a non-nil pointer")
	}
	fill(rv.Elem(), s, flag, map[reflect.Type]int{})
}

// maxNesting is how often one type may be open on the way down.
const maxNesting = 2

func fill(v reflect.Value, s string, flag bool, open map[reflect.Type]int) {
	if !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(flag)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		t := v.Type().Elem()
		if open[t] >= maxNesting {
			return
		}
		open[t]++
		p := reflect.New(t)
		fill(p.Elem(), s, flag, open)
		v.Set(p)
		open[t]--
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), s, flag, open)
		}
	case reflect.Slice:
		sl := reflect.MakeSlice(v.Type(), 1, 1)
		fill(sl.Index(0), s, flag, open)
		v.Set(sl)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), s, flag, open)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		e := reflect.New(v.Type().Elem()).Elem()
		fill(k, s, flag, open)
		fill(e, s, flag, open)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}
