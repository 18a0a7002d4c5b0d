// Specialised readers and writers for the hottest basic types. Each is a
// small non-generic leaf, so the compiler inlines it into the instrumented
// code, which it does not do for the generic path in val.go (a type switch
// on the value). The items they append are the same as val.go's; the slot
// must be below 1<<16 (it is not masked, to keep them within the inlining
// budget).

package rt

import "math"

// VInt pushes the read of an int in operand slot and returns it.
func VInt(f *F, slot int, v int) int {
	f.putInt(uint64(slot)<<16, int64(v))
	return v
}

// WInt pushes the int written to operand slot.
func WInt(f *F, slot int, v int) {
	f.putInt(roleWrite<<4|uint64(slot)<<16, int64(v))
}

// VInt64 pushes the read of an int64 in operand slot and returns it.
func VInt64(f *F, slot int, v int64) int64 {
	f.putInt(uint64(slot)<<16, v)
	return v
}

// WInt64 pushes the int64 written to operand slot.
func WInt64(f *F, slot int, v int64) {
	f.putInt(roleWrite<<4|uint64(slot)<<16, v)
}

// VInt32 pushes the read of an int32 in operand slot and returns it.
func VInt32(f *F, slot int, v int32) int32 {
	f.putInt(uint64(slot)<<16, int64(v))
	return v
}

// WInt32 pushes the int32 written to operand slot.
func WInt32(f *F, slot int, v int32) {
	f.putInt(roleWrite<<4|uint64(slot)<<16, int64(v))
}

// VInt8 pushes the read of an int8 in operand slot and returns it.
func VInt8(f *F, slot int, v int8) int8 {
	f.putInt(uint64(slot)<<16, int64(v))
	return v
}

// WInt8 pushes the int8 written to operand slot.
func WInt8(f *F, slot int, v int8) {
	f.putInt(roleWrite<<4|uint64(slot)<<16, int64(v))
}

// VInt16 pushes the read of an int16 in operand slot and returns it.
func VInt16(f *F, slot int, v int16) int16 {
	f.putInt(uint64(slot)<<16, int64(v))
	return v
}

// WInt16 pushes the int16 written to operand slot.
func WInt16(f *F, slot int, v int16) {
	f.putInt(roleWrite<<4|uint64(slot)<<16, int64(v))
}

// VUint pushes the read of an uint in operand slot and returns it.
func VUint(f *F, slot int, v uint) uint {
	f.putUint(uint64(slot)<<16, uint64(v))
	return v
}

// WUint pushes the uint written to operand slot.
func WUint(f *F, slot int, v uint) {
	f.putUint(roleWrite<<4|uint64(slot)<<16, uint64(v))
}

// VUint64 pushes the read of an uint64 in operand slot and returns it.
func VUint64(f *F, slot int, v uint64) uint64 {
	f.putUint(uint64(slot)<<16, v)
	return v
}

// WUint64 pushes the uint64 written to operand slot.
func WUint64(f *F, slot int, v uint64) {
	f.putUint(roleWrite<<4|uint64(slot)<<16, v)
}

// VUint32 pushes the read of an uint32 in operand slot and returns it.
func VUint32(f *F, slot int, v uint32) uint32 {
	f.putUint(uint64(slot)<<16, uint64(v))
	return v
}

// WUint32 pushes the uint32 written to operand slot.
func WUint32(f *F, slot int, v uint32) {
	f.putUint(roleWrite<<4|uint64(slot)<<16, uint64(v))
}

// VUint16 pushes the read of an uint16 in operand slot and returns it.
func VUint16(f *F, slot int, v uint16) uint16 {
	f.putUint(uint64(slot)<<16, uint64(v))
	return v
}

// WUint16 pushes the uint16 written to operand slot.
func WUint16(f *F, slot int, v uint16) {
	f.putUint(roleWrite<<4|uint64(slot)<<16, uint64(v))
}

// VUint8 pushes the read of an uint8 in operand slot and returns it.
func VUint8(f *F, slot int, v uint8) uint8 {
	f.putUint(uint64(slot)<<16, uint64(v))
	return v
}

// WUint8 pushes the uint8 written to operand slot.
func WUint8(f *F, slot int, v uint8) {
	f.putUint(roleWrite<<4|uint64(slot)<<16, uint64(v))
}

// VUintptr pushes the read of an uintptr in operand slot and returns it.
func VUintptr(f *F, slot int, v uintptr) uintptr {
	f.putUint(uint64(slot)<<16, uint64(v))
	return v
}

// WUintptr pushes the uintptr written to operand slot.
func WUintptr(f *F, slot int, v uintptr) {
	f.putUint(roleWrite<<4|uint64(slot)<<16, uint64(v))
}

// VBool pushes the read of a bool in operand slot and returns it.
func VBool(f *F, slot int, v bool) bool {
	f.putBool(uint64(slot)<<16, v)
	return v
}

// WBool pushes the bool written to operand slot.
func WBool(f *F, slot int, v bool) {
	f.putBool(roleWrite<<4|uint64(slot)<<16, v)
}

// VFloat64 pushes the read of a float64 in operand slot and returns it.
func VFloat64(f *F, slot int, v float64) float64 {
	f.putFloat(uint64(slot)<<16, math.Float64bits(v))
	return v
}

// WFloat64 pushes the float64 written to operand slot.
func WFloat64(f *F, slot int, v float64) {
	f.putFloat(roleWrite<<4|uint64(slot)<<16, math.Float64bits(v))
}

// VFloat32 pushes the read of a float32 in operand slot and returns it.
func VFloat32(f *F, slot int, v float32) float32 {
	f.putFloat(uint64(slot)<<16, math.Float64bits(float64(v)))
	return v
}

// WFloat32 pushes the float32 written to operand slot.
func WFloat32(f *F, slot int, v float32) {
	f.putFloat(roleWrite<<4|uint64(slot)<<16, math.Float64bits(float64(v)))
}
