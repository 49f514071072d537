package org.packyard.access;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Remembered answers about Authorization headers, keyed by the header's sha256 (so what a client
 * sends never decides how much is kept), bounded by entries and by estimated bytes. Callers store
 * only successes: a failure is not worth remembering and must not let an anonymous client pin
 * memory. Beyond a bound, arbitrary entries are dropped until a tenth of the room is free again.
 *
 * <pre>{@code
 * String key = AuthCache.key(header);
 * Auth a = cache.get(key, model.version(), now);
 * if (a == null && (a = parse(header)) instanceof Auth.User) cache.put(key, a, model.version(), now + ttl, weight);
 * }</pre>
 */
final class AuthCache<V> {
  /** A rough per-entry overhead: the key string, the entry, the map node. */
  static final int ENTRY_OVERHEAD = 200;

  private record Entry<V>(V value, long version, long until, int bytes) {}

  private final ConcurrentHashMap<String, Entry<V>> map = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final int maxEntries;
  private final long maxBytes;

  AuthCache(int maxEntries, long maxBytes) {
    if (maxEntries < 1) throw new IllegalArgumentException("maxEntries < 1: " + maxEntries);
    if (maxBytes < ENTRY_OVERHEAD) throw new IllegalArgumentException("maxBytes < " + ENTRY_OVERHEAD + ": " + maxBytes);
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /** Slots of each thread's memo of recent keys (a power of two). */
  static final int MEMO_SLOTS = 64;
  /** Longer headers are hashed every time, so a memo never holds more than about 64 KiB per thread. */
  static final int MEMO_MAX_CHARS = 1024;
  /** Per thread (an event loop): header, key, header, key... in slots picked by the header's hashCode. */
  private static final ThreadLocal<String[]> MEMO = ThreadLocal.withInitial(() -> new String[2 * MEMO_SLOTS]);

  /**
   * The key of {@code header}: its sha256, hex. A keep-alive client sends the same header on every
   * request, so each thread remembers the keys of the last headers it hashed (one per slot): hashing
   * and hex-encoding the header was most of a private repository's per-request cost in the profile
   * (BENCHMARKS.md). The memo returns exactly what hashing would, and compares the header in time
   * that depends only on its length.
   */
  static String key(String header) {
    if (header.length() > MEMO_MAX_CHARS) return Tokens.sha256(header);
    String[] memo = MEMO.get();
    int i = 2 * (header.hashCode() & (MEMO_SLOTS - 1));
    String seen = memo[i];
    if (seen != null && sameChars(seen, header)) return memo[i + 1];
    String key = Tokens.sha256(header);
    memo[i] = header;
    memo[i + 1] = key;
    return key;
  }

  /** Equality of two strings, in time that depends on their lengths only. */
  private static boolean sameChars(String a, String b) {
    if (a.length() != b.length()) return false;
    int diff = 0;
    for (int i = 0; i < a.length(); i++) diff |= a.charAt(i) ^ b.charAt(i);
    return diff == 0;
  }

  /** The value stored under {@code key} for model {@code version}, if it has not expired at {@code now}; else null. */
  V get(String key, long version, long now) {
    Entry<V> e = map.get(key);
    if (e == null) return null;
    if (e.version == version && e.until > now) return e.value;
    remove(key);
    return null;
  }

  /** Stores {@code value}, weighing {@code bytes} besides the fixed overhead, until {@code until}. */
  void put(String key, V value, long version, long until, int bytes) {
    Entry<V> e = new Entry<>(value, version, until, ENTRY_OVERHEAD + Math.max(0, bytes));
    if (e.bytes > maxBytes) return;
    Entry<V> old = map.put(key, e);
    this.bytes.addAndGet(e.bytes - (old == null ? 0 : old.bytes));
    if (map.size() > maxEntries || this.bytes.get() > maxBytes) shrink();
  }

  void remove(String key) {
    Entry<V> old = map.remove(key);
    if (old != null) bytes.addAndGet(-old.bytes);
  }

  void clear() {
    for (String k : map.keySet()) remove(k);
  }

  private void shrink() {
    long entryGoal = maxEntries - Math.max(1, maxEntries / 10);
    long byteGoal = maxBytes - maxBytes / 10;
    for (Iterator<String> it = map.keySet().iterator(); it.hasNext() && (map.size() > entryGoal || bytes.get() > byteGoal); ) {
      remove(it.next());
    }
  }

  int size() {
    return map.size();
  }

  long bytes() {
    return bytes.get();
  }
}
