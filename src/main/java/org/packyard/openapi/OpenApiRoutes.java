package org.packyard.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.packyard.server.Cors;
import org.packyard.server.Responses;

/**
 * The OpenAPI 3.1 contract of the native API, {@code GET /api/v1/openapi.json}. It is written by
 * hand as YAML ({@value #RESOURCE}) and converted to JSON once, when the routes are made; tests
 * hold it against the router and the answers of the API, so it cannot drift.
 */
public final class OpenApiRoutes {
  /** The document's resource on the class path. */
  public static final String RESOURCE = "openapi/packyard.yaml";
  /** Where it is served. */
  public static final String PATH = "/api/v1/openapi.json";

  private final Buffer json;

  /** Reads and converts the document (blocking: make it off the event loop). */
  public OpenApiRoutes() {
    this.json = Buffer.buffer(json(load()));
  }

  /** The document as a tree, read from {@value #RESOURCE}. */
  public static JsonNode load() {
    try (InputStream in = OpenApiRoutes.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) throw new IllegalStateException("missing resource " + RESOURCE);
      return new YAMLMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("the OpenAPI document " + RESOURCE + " is not valid YAML: " + e.getMessage(), e);
    }
  }

  private static byte[] json(JsonNode doc) {
    try {
      return new ObjectMapper().writeValueAsBytes(doc);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The document as served: JSON, UTF-8. */
  public Buffer document() {
    return json.copy();
  }

  public void mount(Router router) {
    router.get(PATH).handler(ctx -> {
      // Public: a browser page on another origin (a hosted API viewer) may read it.
      ctx.response().putHeader("Cache-Control", "public, max-age=300");
      Cors.add(ctx.response());
      Responses.json(ctx, json);
    });
  }
}
