package org.packyard.index;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.packyard.rpm.Evr;

/** Every package of a snapshot index by name, arch and EVR: what the changes feed compares. */
public final class PackageList {
  private PackageList() {}

  /** One package of a snapshot. */
  public record Nevra(String name, String arch, Evr evr) {}

  /** A name and arch. */
  public record NameArch(String name, String arch) {}

  /**
   * Where a snapshot whose publisher knew what it changed says so: the snapshot it was made from,
   * then the name and arch of every package it added or removed, one a line, tab-separated. It
   * lets the changes feed compare only those names, not every package (an incremental publish).
   */
  static final String CHANGED = "changed-names.tsv";

  /** Writes {@link #CHANGED} into {@code indexDir}: {@code changed} against snapshot {@code base}. Blocking. */
  public static void writeChanged(Path indexDir, String base, java.util.Collection<NameArch> changed) throws IOException {
    StringBuilder b = new StringBuilder(base).append('\n');
    for (NameArch n : new java.util.LinkedHashSet<>(changed)) {
      if (n.name().indexOf('\t') >= 0 || n.name().indexOf('\n') >= 0 || n.arch().indexOf('\t') >= 0 || n.arch().indexOf('\n') >= 0) return;
      b.append(n.name()).append('\t').append(n.arch()).append('\n');
    }
    java.nio.file.Files.writeString(indexDir.resolve(CHANGED), b);
  }

  /** The names and arches {@code indexDir}'s snapshot changed against snapshot {@code base}, or null when it does not say. */
  public static List<NameArch> changed(Path indexDir, String base) throws IOException {
    List<String> lines;
    try {
      lines = java.nio.file.Files.readAllLines(indexDir.resolve(CHANGED));
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    }
    if (lines.isEmpty() || !lines.get(0).equals(base)) return null;
    List<NameArch> out = new ArrayList<>();
    for (String l : lines.subList(1, lines.size())) {
      int tab = l.indexOf('\t');
      if (tab < 0) return null;
      out.add(new NameArch(l.substring(0, tab), l.substring(tab + 1)));
    }
    return out;
  }

  /** The packages of the index in {@code indexDir} with one of {@code names}' name and arch (blocking). */
  public static List<Nevra> read(Path indexDir, List<NameArch> names) throws IOException {
    try (Connection db = DriverManager.getConnection("jdbc:sqlite:file:" + indexDir.resolve(IndexFiles.SQLITE) + "?mode=ro");
        java.sql.PreparedStatement st = db.prepareStatement(
            "SELECT name, arch, epoch, version, release FROM packages WHERE name = ? AND arch = ?")) {
      List<Nevra> out = new ArrayList<>();
      for (NameArch n : new java.util.LinkedHashSet<>(names)) {
        st.setString(1, n.name());
        st.setString(2, n.arch());
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) out.add(new Nevra(rs.getString(1), rs.getString(2), new Evr(rs.getString(3), rs.getString(4), rs.getString(5))));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IOException("cannot read the packages of " + indexDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * The packages of the index in {@code indexDir}, read from its database by name and arch (the
   * {@code packages_name} index, which covers the columns read: at 75,000 packages 55 ms in place
   * of 220 through the table), so that a diff sorting them finds them nearly in order (blocking).
   */
  public static List<Nevra> read(Path indexDir) throws IOException {
    try (Connection db = DriverManager.getConnection("jdbc:sqlite:file:" + indexDir.resolve(IndexFiles.SQLITE) + "?mode=ro");
        Statement st = db.createStatement();
        ResultSet rs = st.executeQuery("SELECT name, arch, epoch, version, release FROM packages ORDER BY name, arch")) {
      List<Nevra> out = new ArrayList<>();
      while (rs.next()) out.add(new Nevra(rs.getString(1), rs.getString(2), new Evr(rs.getString(3), rs.getString(4), rs.getString(5))));
      return out;
    } catch (SQLException e) {
      throw new IOException("cannot read the packages of " + indexDir + ": " + e.getMessage(), e);
    }
  }
}
