package org.packyard.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/** Package names for the mdapi clients: a file of names, or the branch's NDJSON name stream. */
final class MdapiNames {
  private static final JsonFactory JSON = new JsonFactory();

  private MdapiNames() {}

  /** One name per line; blank lines and lines starting with {@code #} are skipped. */
  static Set<String> fromFile(Path file) throws IOException {
    Set<String> names = new LinkedHashSet<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String s = line.strip();
      if (!s.isEmpty() && !s.startsWith("#")) names.add(s);
    }
    if (names.isEmpty()) throw new IOException("--names " + file + " has no names");
    return names;
  }

  /** {@code GET /api/v1/branches/{branch}/packages}: one JSON object with a "name" per line. */
  static Set<String> fromServer(Fetch fetch, Target root, String branch) throws IOException {
    String url = root.show(root.basePath() + "api/v1/branches/" + Target.encodeSegment(branch) + "/packages");
    try (InputStream in = fetch.open(url)) {
      Set<String> names = fromNdjson(in);
      if (names.isEmpty()) throw new IOException(url + " listed no packages");
      return names;
    }
  }

  static Set<String> fromNdjson(InputStream in) throws IOException {
    Set<String> names = new LinkedHashSet<>();
    BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
    int lineNo = 0;
    for (String line; (line = r.readLine()) != null; ) {
      lineNo++;
      if (line.isBlank()) continue;
      String name = name(line);
      if (name == null) throw new IOException("line " + lineNo + " of the package stream has no \"name\": " + abbreviate(line));
      names.add(name);
    }
    return names;
  }

  /** The top-level "name" string of one JSON object, without building the object. */
  private static String name(String line) throws IOException {
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) return null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        if (field.equals("name") && v == JsonToken.VALUE_STRING) return p.getText();
        p.skipChildren();
      }
      return null;
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
