#if canImport(Glibc)
    import Glibc
#endif

/// What `stat` says of a file: size, modification and status-change times (nanoseconds), inode and device. A load
/// that finds a file's stamp unchanged (and settled, ``SourceFiles``) does not read it again; the status-change
/// time also moves on writes that put the modification time back (`cp -p`, `rsync -t`, `touch -d`).
struct FileStamp: Hashable, Sendable {
    var size: Int
    var modified: Int
    var changed: Int
    var inode: UInt
    var device: UInt

    /// The stamp of the file at `path`; `nil` when it cannot be stat'ed.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        changed = Int(info.st_ctim.tv_sec) * 1_000_000_000 + Int(info.st_ctim.tv_nsec)
        inode = UInt(info.st_ino)
        device = UInt(info.st_dev)
    }
}
