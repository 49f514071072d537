package org.packyard.index;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.ByteArrayOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.packyard.rpm.ChangelogEntry;
import org.packyard.rpm.DepKind;
import org.packyard.rpm.Dependency;
import org.packyard.rpm.FileEntry;
import org.packyard.rpm.PackageMeta;

/**
 * Encodes the JSON that mdapi routes answer, once, at ingest. Every record stops just after
 * {@code "repo":"}: the server appends the channel and the closing {@code "}}, so one snapshot
 * serves whichever channel its repository is configured as.
 */
final class JsonRecords {
  private static final JsonFactory JSON = JsonFactory.builder().build();

  private static final byte[] CO_PACKAGES = ascii(",\"co-packages\":");
  private static final byte[] FILES = ascii("{\"files\":");
  private static final byte[] CHANGELOGS = ascii("{\"changelogs\":");
  private static final byte[] REPO = ascii(",\"repo\":\"");

  /**
   * One record, encoded in place: the array is reused by the next call, so at ingest a record is
   * written out without a copy of its own (copies of every record were a sixth of the bytes the
   * ingest allocated, in a JFR profile at 75,000 packages).
   */
  static final class Bytes extends ByteArrayOutputStream {
    /**
     * The largest buffer that is not a humongous object for G1 with 1 MiB regions (the region
     * size of the shipped heap caps): an object of half a region or more is allocated outside the
     * young generation and may start a concurrent cycle, whose remark pauses the server (11-26 ms
     * in the soak, at a sync whose file lists took this buffer from 256 to 512 KiB by doubling).
     * Beyond 256 KiB the buffer grows to what the record needs, so only a record of about 512 KiB
     * or more takes a humongous array.
     */
    static final int UNDER_HUMONGOUS = (512 << 10) - 64;

    Bytes() {
      super(1 << 14);
    }

    @Override
    public void write(int b) {
      room(1);
      super.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      room(len);
      super.write(b, off, len);
    }

    /** Grows the buffer for {@code more} bytes: doubling, but not past {@link #UNDER_HUMONGOUS} unless the record needs more. */
    private void room(int more) {
      int need = count + more;
      if (need <= buf.length) return;
      int doubled = (int) Math.min(Integer.MAX_VALUE - 8, 2L * buf.length);
      buf = java.util.Arrays.copyOf(buf, need > UNDER_HUMONGOUS ? Math.max(need, doubled)
          : Math.min(Math.max(need, doubled), UNDER_HUMONGOUS));
    }

    /** Empties the buffer; returns it, to write on. */
    Bytes clear() {
      reset();
      return this;
    }

    /** The encoded bytes: {@link #length} of them, valid until the next record. */
    byte[] array() {
      return buf;
    }

    int length() {
      return count;
    }
  }

  private final Bytes buffer = new Bytes();

  /**
   * The /pkg object of a package up to, not including, "co-packages": the caller appends
   * {@link #packageTail} for the package's source.
   */
  Bytes packageHead(PackageMeta p) {
    buffer.clear();
    try (JsonGenerator g = JSON.createGenerator(buffer)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT); // the tail closes the object
      g.writeStartObject();
      g.writeStringField("name", p.name());
      g.writeStringField("arch", p.arch());
      g.writeStringField("epoch", p.evr().epoch());
      g.writeStringField("version", p.evr().version());
      g.writeStringField("release", p.evr().release());
      g.writeStringField("summary", p.summary());
      g.writeStringField("description", p.description());
      g.writeStringField("basename", p.basename());
      g.writeStringField("url", p.url());
      for (DepKind kind : DepKind.values()) {
        g.writeArrayFieldStart(kind.key());
        for (Dependency d : p.deps(kind)) {
          g.writeStartObject();
          g.writeStringField("name", d.name());
          g.writeStringField("epoch", d.epoch());
          g.writeStringField("version", d.version());
          g.writeStringField("release", d.release());
          g.writeStringField("flags", d.flags());
          g.writeEndObject();
        }
        g.writeEndArray();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return buffer;
  }

  /** {@code ,"co-packages":[...],"repo":"} for the names built from one source rpm. */
  byte[] packageTail(List<String> coPackages) {
    buffer.clear().write(CO_PACKAGES, 0, CO_PACKAGES.length);
    try (JsonGenerator g = JSON.createGenerator(buffer)) {
      g.writeStartArray();
      for (String n : coPackages) g.writeString(n);
      g.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    buffer.write(REPO, 0, REPO.length);
    return buffer.toByteArray(); // kept: one tail serves every package of its source
  }

  /**
   * {@code {"files":[...],"repo":"}: one object per directory, as createrepo's sqlite
   * {@code filelist} table groups them, ordered by filenames as mdapi's query orders them.
   */
  Bytes files(List<FileEntry> files) {
    return buffered(to -> files(files, to));
  }

  /**
   * Writes {@link #files(List)}'s record onto {@code to}, which it neither flushes nor closes: at
   * ingest straight into the record file, so that a package of 20,000 files (a megabyte of JSON)
   * needs no buffer of its size, which G1 would allocate as a humongous object.
   */
  void files(List<FileEntry> files, OutputStream to) throws IOException {
    Map<String, StringBuilder[]> dirs = new LinkedHashMap<>();
    String lastDir = null;
    StringBuilder[] acc = null;
    for (FileEntry f : files) {
      String path = f.path();
      int slash = path.lastIndexOf('/');
      // A file list comes mostly directory by directory: a file in the directory of the one
      // before goes to the same place without a new string or a map lookup (in a JFR profile of
      // ingest this method had 108 of the ingest threads' 283 CPU samples, then 44 of 220).
      if (!(slash > 0 && lastDir != null && lastDir.length() == slash && path.startsWith(lastDir))) {
        lastDir = slash < 0 ? "." : slash == 0 ? "/" : path.substring(0, slash);
        acc = dirs.computeIfAbsent(lastDir, d -> new StringBuilder[] {new StringBuilder(), new StringBuilder()});
      }
      if (!acc[0].isEmpty()) acc[0].append('/');
      // createrepo_c names the root directory itself "/" within "/": owning / and /usr is "//usr".
      if (path.equals("/")) acc[0].append('/');
      else acc[0].append(path, slash + 1, path.length());
      acc[1].append(f.type());
    }
    List<Map.Entry<String, StringBuilder[]>> sorted = new ArrayList<>(dirs.entrySet());
    sorted.sort((a, b) -> compareCodePoints(a.getValue()[0], b.getValue()[0]));
    try (JsonGenerator g = generator(to, FILES)) {
      g.writeStartArray();
      for (Map.Entry<String, StringBuilder[]> e : sorted) {
        g.writeStartObject();
        g.writeStringField("dirname", e.getKey());
        g.writeStringField("filenames", e.getValue()[0].toString());
        g.writeStringField("filetypes", e.getValue()[1].toString());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.flush();
      to.write(REPO, 0, REPO.length);
    }
  }

  /** {@code {"changelogs":[...],"repo":"}, newest first as mdapi orders them. */
  Bytes changelogs(List<ChangelogEntry> entries) {
    return buffered(to -> changelogs(entries, to));
  }

  /** Writes {@link #changelogs(List)}'s record onto {@code to}, as {@link #files(List, OutputStream)} does. */
  void changelogs(List<ChangelogEntry> entries, OutputStream to) throws IOException {
    List<ChangelogEntry> sorted = new ArrayList<>(entries);
    sorted.sort((a, b) -> Long.compare(b.date(), a.date()));
    try (JsonGenerator g = generator(to, CHANGELOGS)) {
      g.writeStartArray();
      for (ChangelogEntry c : sorted) {
        g.writeStartObject();
        g.writeStringField("author", c.author());
        g.writeStringField("changelog", c.text());
        g.writeNumberField("date", c.date());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.flush();
      to.write(REPO, 0, REPO.length);
    }
  }

  /** The record {@code body} writes, in this instance's reused buffer. */
  private Bytes buffered(RecordFileWriter.Body body) {
    try {
      body.writeTo(buffer.clear());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return buffer;
  }

  /** A generator onto {@code to} after {@code prefix}, which leaves {@code to} open and unflushed when closed. */
  private static JsonGenerator generator(OutputStream to, byte[] prefix) throws IOException {
    to.write(prefix, 0, prefix.length);
    return JSON.createGenerator(to).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
        .disable(JsonGenerator.Feature.FLUSH_PASSED_TO_STREAM);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** SQLite's BINARY collation on UTF-8 text is code point order (not Java's UTF-16 order). */
  static int compareCodePoints(CharSequence a, CharSequence b) {
    int i = 0, j = 0;
    while (i < a.length() && j < b.length()) {
      int x = Character.codePointAt(a, i), y = Character.codePointAt(b, j);
      if (x != y) return Integer.compare(x, y);
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
