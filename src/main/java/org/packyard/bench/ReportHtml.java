package org.packyard.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@link Report} as one self-contained HTML page: the JSON inlined, drawn as SVG by inline
 * script; nothing is fetched from the network.
 */
final class ReportHtml {
  private static final String MARK = "/*REPORT*/";

  private ReportHtml() {}

  static String toHtml(Report r) {
    String template = template();
    int at = template.indexOf(MARK);
    if (at < 0) throw new IllegalStateException("report.html has no " + MARK);
    // '<' never occurs outside strings in JSON; escaped, the data cannot end the script element.
    String json = ReportJson.toJson(r).replace("<", "\\u003c");
    return template.substring(0, at) + json + template.substring(at + MARK.length());
  }

  static void write(Report r, Path file) throws IOException {
    ReportJson.writeAtomically(file, toHtml(r));
  }

  private static String template() {
    try (InputStream in = ReportHtml.class.getResourceAsStream("report.html")) {
      if (in == null) throw new IllegalStateException("report.html is missing from the jar");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read report.html: " + e.getMessage(), e);
    }
  }
}
