package org.packyard.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code blobs} and {@code cache} keys, their environment variables, and the refusals. */
class BlobsConfigTest {
  @TempDir Path tmp;

  PackyardConfig load(String yaml, Map<String, String> env) throws Exception {
    return ConfigLoader.load(Files.writeString(tmp.resolve("packyard.yaml"), yaml), env);
  }

  String refusal(String yaml, Map<String, String> env) {
    try {
      load(yaml, env);
    } catch (ConfigException e) {
      return e.getMessage();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("accepted: " + yaml + " " + env);
  }

  @Test
  void defaults_fileSystemBlobs_cacheUnderData20GiB() throws Exception {
    PackyardConfig c = load("data: d\n", Map.of());
    assertThat(c.blobs().isS3()).isFalse();
    assertThat(c.cache().dir()).isEqualTo(tmp.resolve("d").resolve("cache"));
    assertThat(c.cache().maxSize()).isEqualTo(20L << 30);
  }

  @Test
  void s3Url_allParts() throws Exception {
    PackyardConfig c = load("blobs: s3://pky-blobs/prod/eu?endpoint=https://s3.example.org:9000&region=eu-west-1&path_style=true\n"
        + "cache: {dir: ./c, max_size: 512MiB}\n", Map.of());
    BlobsConfig b = c.blobs();
    assertThat(b.isS3()).isTrue();
    assertThat(b.bucket()).isEqualTo("pky-blobs");
    assertThat(b.prefix()).isEqualTo("prod/eu/");
    assertThat(b.endpoint()).isEqualTo(URI.create("https://s3.example.org:9000"));
    assertThat(b.region()).isEqualTo("eu-west-1");
    assertThat(b.pathStyle()).isTrue();
    assertThat(b.serve()).isEqualTo(BlobsConfig.Serve.PROXY);
    assertThat(c.cache().dir()).isEqualTo(tmp.resolve("c"));
    assertThat(c.cache().maxSize()).isEqualTo(512L << 20);
  }

  @Test
  void s3Url_defaults_awsEndpointUsEast1VirtualHosted_noPrefix() throws Exception {
    BlobsConfig b = load("blobs: s3://bucket\n", Map.of()).blobs();
    assertThat(b.endpoint()).isNull();
    assertThat(b.region()).isEqualTo("us-east-1");
    assertThat(b.pathStyle()).isFalse();
    assertThat(b.prefix()).isEmpty();
  }

  @Test
  void mappingForm_withServeRedirect() throws Exception {
    BlobsConfig b = load("blobs: {url: \"s3://bucket/p/?region=eu-west-1\", serve: redirect}\n", Map.of()).blobs();
    assertThat(b.serve()).isEqualTo(BlobsConfig.Serve.REDIRECT);
    assertThat(b.prefix()).isEqualTo("p/");
  }

  @Test
  void environment_overridesEveryKey() throws Exception {
    PackyardConfig c = load("blobs: s3://from-file/x/\ncache: {max_size: 1GiB}\n", Map.of(
        "PACKYARD_BLOBS", "s3://from-env/y/?endpoint=http://127.0.0.1:9000&path_style=true",
        "PACKYARD_BLOBS_SERVE", "redirect",
        "PACKYARD_CACHE_DIR", "/var/cache/packyard",
        "PACKYARD_CACHE_MAX_SIZE", "1TB"));
    assertThat(c.blobs().bucket()).isEqualTo("from-env");
    assertThat(c.blobs().serve()).isEqualTo(BlobsConfig.Serve.REDIRECT);
    assertThat(c.cache().dir()).isEqualTo(Path.of("/var/cache/packyard"));
    assertThat(c.cache().maxSize()).isEqualTo(1_000_000_000_000L);
  }

  @Test
  void badValues_areRefusedNamingTheFileAndTheKey() {
    String file = tmp.resolve("packyard.yaml").toString();
    assertThat(refusal("cache: {max_size: lots}\n", Map.of()))
        .isEqualTo(file + ": cache.max_size must be a size like 20GiB, 512MiB or 1TB, got: lots");
    assertThat(refusal("cache: {size: 1GiB}\n", Map.of())).startsWith(file + ": cache: unknown key 'size'");
    assertThat(refusal("blobs: gs://bucket/\n", Map.of())).startsWith(file + ": blobs must be s3://");
    assertThat(refusal("blobs: s3://bucket/?acl=public\n", Map.of())).isEqualTo(file + ": blobs: unknown parameter 'acl'; known: endpoint, region, path_style");
    assertThat(refusal("blobs: s3://bucket/?path_style=yes\n", Map.of())).contains("path_style must be true or false, got: yes");
    assertThat(refusal("blobs: s3://Bad_Bucket/\n", Map.of())).contains("bucket must be 3-63 characters");
    assertThat(refusal("blobs: {url: s3://bucket/, serve: sometimes}\n", Map.of()))
        .isEqualTo(file + ": blobs.serve must be proxy or redirect, got: sometimes");
    assertThat(refusal("blobs: {serve: redirect}\n", Map.of())).contains("redirect needs blobs.url");
    assertThat(refusal("", Map.of("PACKYARD_CACHE_MAX_SIZE", "0"))).contains("cache.max_size must be more than 0 bytes");
  }

  @Test
  void gcKeys_defaultsFileAndEnvironment_andBadValuesNamed() throws Exception {
    BlobsConfig d = load("data: d\n", Map.of()).blobs();
    assertThat(d.gcEvery()).isEqualTo(java.time.Duration.ofHours(6));
    assertThat(d.gcGrace()).isEqualTo(java.time.Duration.ofHours(24));
    BlobsConfig f = load("blobs: {gc_every: 30m, gc_grace: 2d}\n", Map.of()).blobs();
    assertThat(f.isS3()).isFalse();
    assertThat(f.gcEvery()).isEqualTo(java.time.Duration.ofMinutes(30));
    assertThat(f.gcGrace()).isEqualTo(java.time.Duration.ofDays(2));
    BlobsConfig e = load("blobs: s3://bucket/p/\n", Map.of("PACKYARD_BLOBS_GC_EVERY", "off", "PACKYARD_BLOBS_GC_GRACE", "48h")).blobs();
    assertThat(e.bucket()).isEqualTo("bucket");
    assertThat(e.gcEvery()).isZero();
    assertThat(e.gcGrace()).isEqualTo(java.time.Duration.ofHours(48));
    String file = tmp.resolve("packyard.yaml").toString();
    assertThat(refusal("blobs: {gc_every: often}\n", Map.of())).startsWith(file + ": blobs.gc_every must be a duration").contains("often");
    assertThat(refusal("blobs: {gc_grace: 1m}\n", Map.of())).startsWith(file + ": blobs.gc_grace must be at least 10m").endsWith("got: 1m");
    assertThat(refusal("blobs: {gc_grace: off}\n", Map.of())).startsWith(file + ": blobs.gc_grace must be a duration");
  }

  @Test
  void credentialsInTheUrl_areRefusedWithoutRepeatingThem() {
    String secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY";
    String m = refusal("blobs: s3://AKIDEXAMPLE:" + secret + "@bucket/p/\n", Map.of());
    assertThat(m).contains("must not carry credentials").contains("AWS default chain").doesNotContain(secret).doesNotContain("AKIDEXAMPLE");
    String e = refusal("blobs: s3://bucket/p/?endpoint=https://user:" + secret + "@s3.example.org\n", Map.of());
    assertThat(e).contains("must not carry credentials").doesNotContain(secret);
  }

  @Test
  void sizes_binaryAndDecimalUnits() {
    assertThat(Sizes.parse("x", "20GiB")).isEqualTo(20L << 30);
    assertThat(Sizes.parse("x", "20G")).isEqualTo(20L << 30);
    assertThat(Sizes.parse("x", "5 MB")).isEqualTo(5_000_000L);
    assertThat(Sizes.parse("x", "1048576")).isEqualTo(1L << 20);
    assertThat(Sizes.parse("x", "2tib")).isEqualTo(2L << 40);
    assertThatThrownBy(() -> Sizes.parse("x", "99999999999TiB")).hasMessageContaining("too large");
    assertThatThrownBy(() -> Sizes.parse("x", "-1GiB")).hasMessageContaining("must be a size");
    assertThat(Sizes.format(20L << 30)).isEqualTo("20 GiB");
  }
}
