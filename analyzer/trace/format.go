package trace

import (
	"fmt"
	"math"
	"strconv"
)

// String renders a value briefly for reports and tests.
func (v Value) String() string {
	switch v.Kind {
	case ValBool:
		return strconv.FormatBool(v.Bits != 0)
	case ValInt:
		return strconv.FormatInt(int64(v.Bits), 10)
	case ValUint:
		return strconv.FormatUint(v.Bits, 10)
	case ValFloat:
		return strconv.FormatFloat(math.Float64frombits(v.Bits), 'g', -1, 64)
	case ValString:
		if int64(len(v.Prefix)) == v.Len {
			return strconv.Quote(v.Prefix)
		}
		return fmt.Sprintf("%q…(len %d)", v.Prefix, v.Len)
	case ValPointer, ValIface:
		if v.Nil {
			return "nil"
		}
		return fmt.Sprintf("0x%x", v.Bits)
	case ValSlice:
		return fmt.Sprintf("[]{len %d cap %d}", v.Len, v.Cap)
	case ValNone:
		return "?"
	}
	return "…"
}
