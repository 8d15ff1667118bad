// A SQLite VFS over the default one that counts the syncs (fsync/fdatasync) of the files SQLite
// opens through it: what a commit waits for, observed. While a SyncCountingVfs lives it is the
// process's default VFS, so a store opened then syncs through it.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstring>

namespace store_test {

class SyncCountingVfs {
 public:
  SyncCountingVfs() {
    real_ = sqlite3_vfs_find(nullptr);
    vfs_ = *real_;
    vfs_.zName = "whizbang-sync-counting";
    vfs_.szOsFile = static_cast<int>(sizeof(File)) + real_->szOsFile;
    vfs_.pAppData = this;
    vfs_.xOpen = &SyncCountingVfs::open;
    sqlite3_vfs_register(&vfs_, /*makeDflt=*/1);
  }
  ~SyncCountingVfs() {
    sqlite3_vfs_unregister(&vfs_);
    sqlite3_vfs_register(real_, /*makeDflt=*/1);
  }
  SyncCountingVfs(const SyncCountingVfs&) = delete;
  SyncCountingVfs& operator=(const SyncCountingVfs&) = delete;

  int syncs() const { return syncs_.load(); }

 private:
  // The counting file, with the real VFS's file right behind it.
  struct File {
    sqlite3_file base;
    sqlite3_file* real;
    SyncCountingVfs* owner;
  };

  static sqlite3_file* real_of(sqlite3_file* file) { return reinterpret_cast<File*>(file)->real; }

  static int open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags,
                  int* out_flags) {
    auto* self = static_cast<SyncCountingVfs*>(vfs->pAppData);
    auto* counting = reinterpret_cast<File*>(file);
    counting->real = reinterpret_cast<sqlite3_file*>(counting + 1);
    counting->owner = self;
    const int rc = self->real_->xOpen(self->real_, name, counting->real, flags, out_flags);
    // SQLite calls xClose only when pMethods is set: left null when the real open failed.
    counting->base.pMethods = counting->real->pMethods != nullptr ? &self->methods_ : nullptr;
    if (counting->real->pMethods != nullptr && self->methods_.iVersion == 0) {
      self->methods_ = *counting->real->pMethods;
      self->wrap_methods();
    }
    return rc;
  }

  void wrap_methods() {
    methods_.xClose = [](sqlite3_file* f) { return real_of(f)->pMethods->xClose(real_of(f)); };
    methods_.xRead = [](sqlite3_file* f, void* out, int n, sqlite3_int64 at) {
      return real_of(f)->pMethods->xRead(real_of(f), out, n, at);
    };
    methods_.xWrite = [](sqlite3_file* f, const void* in, int n, sqlite3_int64 at) {
      return real_of(f)->pMethods->xWrite(real_of(f), in, n, at);
    };
    methods_.xTruncate = [](sqlite3_file* f, sqlite3_int64 size) {
      return real_of(f)->pMethods->xTruncate(real_of(f), size);
    };
    methods_.xSync = [](sqlite3_file* f, int flags) {
      ++reinterpret_cast<File*>(f)->owner->syncs_;
      return real_of(f)->pMethods->xSync(real_of(f), flags);
    };
    methods_.xFileSize = [](sqlite3_file* f, sqlite3_int64* size) {
      return real_of(f)->pMethods->xFileSize(real_of(f), size);
    };
    methods_.xLock = [](sqlite3_file* f, int level) {
      return real_of(f)->pMethods->xLock(real_of(f), level);
    };
    methods_.xUnlock = [](sqlite3_file* f, int level) {
      return real_of(f)->pMethods->xUnlock(real_of(f), level);
    };
    methods_.xCheckReservedLock = [](sqlite3_file* f, int* out) {
      return real_of(f)->pMethods->xCheckReservedLock(real_of(f), out);
    };
    methods_.xFileControl = [](sqlite3_file* f, int op, void* arg) {
      return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
    };
    methods_.xSectorSize = [](sqlite3_file* f) {
      return real_of(f)->pMethods->xSectorSize(real_of(f));
    };
    methods_.xDeviceCharacteristics = [](sqlite3_file* f) {
      return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
    };
    methods_.xShmMap = [](sqlite3_file* f, int region, int size, int extend, void volatile** out) {
      return real_of(f)->pMethods->xShmMap(real_of(f), region, size, extend, out);
    };
    methods_.xShmLock = [](sqlite3_file* f, int offset, int n, int flags) {
      return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
    };
    methods_.xShmBarrier = [](sqlite3_file* f) { real_of(f)->pMethods->xShmBarrier(real_of(f)); };
    methods_.xShmUnmap = [](sqlite3_file* f, int remove) {
      return real_of(f)->pMethods->xShmUnmap(real_of(f), remove);
    };
    methods_.xFetch = [](sqlite3_file* f, sqlite3_int64 at, int n, void** out) {
      return real_of(f)->pMethods->xFetch(real_of(f), at, n, out);
    };
    methods_.xUnfetch = [](sqlite3_file* f, sqlite3_int64 at, void* page) {
      return real_of(f)->pMethods->xUnfetch(real_of(f), at, page);
    };
  }

  sqlite3_vfs* real_ = nullptr;
  sqlite3_vfs vfs_{};
  sqlite3_io_methods methods_{};  // the real file's methods, each forwarded (xSync counted)
  std::atomic<int> syncs_{0};
};

}  // namespace store_test
