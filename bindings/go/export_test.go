package rocksfilter

// ReaderAtHandles returns how many ReaderAt handles the opens have made
// and how many the library has released (each open makes one, and the
// library must release each exactly once).
func ReaderAtHandles() (made, released int64) {
	return readerAtHandles.made.Load(), readerAtHandles.released.Load()
}
