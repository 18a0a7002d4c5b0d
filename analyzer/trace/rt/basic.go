// Specialised readers and writers for the hottest basic types. Each is a
// small non-generic leaf with a constant tag, so the compiler inlines it
// into the instrumented code, which it does not do for the generic path in
// val.go. The record layout must stay the same as val.go's.

package rt

import "math"

// VInt pushes the read of an int in operand slot and returns it.
func VInt(f *F, slot int, v int) int {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WInt pushes the int written to operand slot.
func WInt(f *F, slot int, v int) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VInt64 pushes the read of an int64 in operand slot and returns it.
func VInt64(f *F, slot int, v int64) int64 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WInt64 pushes the int64 written to operand slot.
func WInt64(f *F, slot int, v int64) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VInt32 pushes the read of an int32 in operand slot and returns it.
func VInt32(f *F, slot int, v int32) int32 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WInt32 pushes the int32 written to operand slot.
func WInt32(f *F, slot int, v int32) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VInt8 pushes the read of an int8 in operand slot and returns it.
func VInt8(f *F, slot int, v int8) int8 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WInt8 pushes the int8 written to operand slot.
func WInt8(f *F, slot int, v int8) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VInt16 pushes the read of an int16 in operand slot and returns it.
func VInt16(f *F, slot int, v int16) int16 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WInt16 pushes the int16 written to operand slot.
func WInt16(f *F, slot int, v int16) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vInt | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VUint pushes the read of an uint in operand slot and returns it.
func VUint(f *F, slot int, v uint) uint {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WUint pushes the uint written to operand slot.
func WUint(f *F, slot int, v uint) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VUint64 pushes the read of an uint64 in operand slot and returns it.
func VUint64(f *F, slot int, v uint64) uint64 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = v
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WUint64 pushes the uint64 written to operand slot.
func WUint64(f *F, slot int, v uint64) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = v
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VUint32 pushes the read of an uint32 in operand slot and returns it.
func VUint32(f *F, slot int, v uint32) uint32 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WUint32 pushes the uint32 written to operand slot.
func WUint32(f *F, slot int, v uint32) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VUint16 pushes the read of an uint16 in operand slot and returns it.
func VUint16(f *F, slot int, v uint16) uint16 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WUint16 pushes the uint16 written to operand slot.
func WUint16(f *F, slot int, v uint16) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VUint8 pushes the read of an uint8 in operand slot and returns it.
func VUint8(f *F, slot int, v uint8) uint8 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WUint8 pushes the uint8 written to operand slot.
func WUint8(f *F, slot int, v uint8) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VUintptr pushes the read of an uintptr in operand slot and returns it.
func VUintptr(f *F, slot int, v uintptr) uintptr {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WUintptr pushes the uintptr written to operand slot.
func WUintptr(f *F, slot int, v uintptr) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vUint | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = uint64(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VBool pushes the read of an bool in operand slot and returns it.
func VBool(f *F, slot int, v bool) bool {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vBool | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = b2u(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WBool pushes the bool written to operand slot.
func WBool(f *F, slot int, v bool) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vBool | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = b2u(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VFloat64 pushes the read of an float64 in operand slot and returns it.
func VFloat64(f *F, slot int, v float64) float64 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vFloat | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = math.Float64bits(v)
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WFloat64 pushes the float64 written to operand slot.
func WFloat64(f *F, slot int, v float64) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vFloat | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = math.Float64bits(v)
		f.n += 2
	} else {
		f.ovf = true
	}
}

// VFloat32 pushes the read of an float32 in operand slot and returns it.
func VFloat32(f *F, slot int, v float32) float32 {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vFloat | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = math.Float64bits(float64(v))
		f.n += 2
	} else {
		f.ovf = true
	}
	return v
}

// WFloat32 pushes the float32 written to operand slot.
func WFloat32(f *F, slot int, v float32) {
	if f.n+2 <= bufWords {
		f.buf[f.n] = vFloat | roleWrite<<8 | uint64(slot)<<16 | 1<<32
		f.buf[f.n+1] = math.Float64bits(float64(v))
		f.n += 2
	} else {
		f.ovf = true
	}
}
