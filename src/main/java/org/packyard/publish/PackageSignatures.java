package org.packyard.publish;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSecretKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureList;
import org.bouncycastle.openpgp.bc.BcPGPObjectFactory;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentVerifierBuilderProvider;

/**
 * Checks that an RPM's header is signed by one of a repository's {@code package_keys}: the
 * OpenPGP signature rpm keeps in the signature header (RSAHEADER, tag 268, or DSAHEADER, tag 267,
 * where rpm 4.18 puts EdDSA signatures), over the main header's bytes, as {@code rpmkeys -K} checks
 * it. The header holds the payload's digest, so a valid header signature covers the whole package
 * once that digest is checked (which parsing the upload does).
 *
 * <pre>{@code
 * PackageSignatures keys = PackageSignatures.load(List.of(Path.of("keys/release.asc")));
 * PackageSignatures.Verdict v = keys.check(Path.of("foo-1.0-1.x86_64.rpm"));
 * if (!v.verified()) throw new BadRequest(v.reason());
 * }</pre>
 */
public final class PackageSignatures {
  private static final int RSAHEADER = 268;
  private static final int DSAHEADER = 267;
  private static final int LEAD = 96;
  /** rpm's own bounds: the signature header's data is small, a header's at most 256 MiB. */
  private static final int MAX_SIG_INDEX = 1000, MAX_SIG_DATA = 64 << 20;
  private static final int MAX_INDEX = 1 << 20, MAX_DATA = 256 << 20;

  /** Each key (primary and subkeys) by key id, with its primary key's fingerprint. */
  private final Map<Long, PGPPublicKey> keys;
  private final Map<Long, String> owners;

  private PackageSignatures(Map<Long, PGPPublicKey> keys, Map<Long, String> owners) {
    this.keys = keys;
    this.owners = owners;
  }

  /** Loads armored (or binary) public key files; each may hold several keys. Names the file that fails. */
  public static PackageSignatures load(List<Path> files) throws KeyException {
    Map<Long, PGPPublicKey> keys = new LinkedHashMap<>();
    Map<Long, String> owners = new LinkedHashMap<>();
    for (Path f : files) {
      int found = 0;
      for (Object o : OpenPgpKeys.read(f, "an OpenPGP public key")) {
        PGPPublicKeyRing ring;
        if (o instanceof PGPPublicKeyRing r) {
          ring = r;
        } else if (o instanceof PGPSecretKeyRing s) {
          ring = s.toCertificate(); // a secret key file also names its public keys
        } else {
          continue;
        }
        String owner = OpenPgpKeys.fingerprint(ring.getPublicKey());
        for (Iterator<PGPPublicKey> it = ring.getPublicKeys(); it.hasNext(); ) {
          PGPPublicKey k = it.next();
          keys.put(k.getKeyID(), k);
          owners.put(k.getKeyID(), owner);
          found++;
        }
      }
      if (found == 0) throw new KeyException(f + ": not an OpenPGP public key (no key in it)");
    }
    return new PackageSignatures(Map.copyOf(keys), Map.copyOf(owners));
  }

  /** What {@link #check} found. */
  public enum Status {
    /** Signed by one of the keys, and the signature verifies. */
    VERIFIED,
    /** No header signature. */
    UNSIGNED,
    /** Signed by a key that is not one of the package keys. */
    UNKNOWN_KEY,
    /** Signed by one of the keys, but the signature does not match the header. */
    BAD_SIGNATURE,
    /** Not an RPM, or a truncated one. */
    MALFORMED
  }

  /**
   * The outcome: for {@link Status#VERIFIED}, {@code keyFingerprint} is the primary key's
   * fingerprint of the key that signed; {@code reason} says in a sentence why a package fails.
   */
  public record Verdict(Status status, String keyFingerprint, String reason) {
    public boolean verified() {
      return status == Status.VERIFIED;
    }
  }

  public Verdict check(Path rpm) throws IOException {
    try (InputStream in = Files.newInputStream(rpm)) {
      return check(in);
    }
  }

  /** Reads the RPM's lead, signature header and header from {@code in} (the payload is not read). */
  public Verdict check(InputStream raw) throws IOException {
    DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16));
    try {
      byte[] lead = in.readNBytes(LEAD);
      if (lead.length < 4 || (lead[0] & 0xff) != 0xed || (lead[1] & 0xff) != 0xab || (lead[2] & 0xff) != 0xee || (lead[3] & 0xff) != 0xdb) {
        return malformed("not an RPM file (bad lead magic)");
      }
      if (lead.length < LEAD) return malformed("truncated RPM (lead)");
      int[] sizes = intro(in, MAX_SIG_INDEX, MAX_SIG_DATA);
      if (sizes == null) return malformed("not an RPM file (bad signature header)");
      byte[] index = new byte[sizes[0] * 16];
      in.readFully(index);
      byte[] data = new byte[sizes[1]];
      in.readFully(data);
      in.skipNBytes((8 - (sizes[1] % 8)) % 8);
      byte[] sig = tag(index, data, RSAHEADER);
      if (sig == null) sig = tag(index, data, DSAHEADER);
      if (sig == null) return new Verdict(Status.UNSIGNED, null, "the package is not signed (no header signature)");
      PGPSignature signature = parse(sig);
      if (signature == null) return malformed("the package's header signature is not an OpenPGP signature");
      long keyId = issuer(signature);
      PGPPublicKey key = keys.get(keyId);
      if (key == null) {
        return new Verdict(Status.UNKNOWN_KEY, null, "the package is signed by unknown key " + OpenPgpKeys.keyId(keyId)
            + ", not by one of the repository's package_keys");
      }
      signature.init(new BcPGPContentVerifierBuilderProvider(), key);
      // The signed region: the header's intro, index and data, as they are in the file.
      byte[] intro = new byte[16];
      in.readFully(intro);
      ByteBuffer b = ByteBuffer.wrap(intro);
      if (b.getInt(0) != 0x8eade801) return malformed("not an RPM file (bad header magic)");
      int n = b.getInt(8), size = b.getInt(12);
      if (n < 1 || n > MAX_INDEX || size < 0 || size > MAX_DATA) return malformed("the RPM's header is too large or malformed");
      signature.update(intro);
      long left = (long) n * 16 + size;
      byte[] buf = new byte[1 << 16];
      while (left > 0) {
        int r = in.read(buf, 0, (int) Math.min(buf.length, left));
        if (r < 0) throw new EOFException();
        signature.update(buf, 0, r);
        left -= r;
      }
      if (!signature.verify()) {
        return new Verdict(Status.BAD_SIGNATURE, null, "bad signature: the header signature by key " + OpenPgpKeys.keyId(keyId)
            + " does not match the package's header");
      }
      return new Verdict(Status.VERIFIED, owners.get(keyId), "signed by " + owners.get(keyId));
    } catch (EOFException e) {
      return malformed("truncated RPM (it ends inside its headers)");
    } catch (PGPException e) {
      return new Verdict(Status.BAD_SIGNATURE, null, "bad signature: " + e.getMessage());
    }
  }

  private static Verdict malformed(String reason) {
    return new Verdict(Status.MALFORMED, null, reason);
  }

  /** A header's intro (magic, reserved, index count, data size); null when it is not one or too large. */
  private static int[] intro(DataInputStream in, int maxIndex, int maxData) throws IOException {
    int magic = in.readInt();
    in.readInt();
    int n = in.readInt(), size = in.readInt();
    if (magic != 0x8eade801 || n < 0 || n > maxIndex || size < 0 || size > maxData) return null;
    return new int[] {n, size};
  }

  /** The bytes of a BIN tag of the signature header, or null. */
  private static byte[] tag(byte[] index, byte[] data, int tag) {
    ByteBuffer b = ByteBuffer.wrap(index);
    for (int i = 0; i < index.length; i += 16) {
      if (b.getInt(i) != tag) continue;
      int type = b.getInt(i + 4), offset = b.getInt(i + 8), count = b.getInt(i + 12);
      if (type != 7 || offset < 0 || count < 0 || (long) offset + count > data.length) return null;
      return java.util.Arrays.copyOfRange(data, offset, offset + count);
    }
    return null;
  }

  private static PGPSignature parse(byte[] sig) {
    try {
      Object o = new BcPGPObjectFactory(sig).nextObject();
      if (o instanceof PGPSignatureList l && !l.isEmpty()) return l.get(0);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return null;
  }

  /** The signer's key id: from the issuer subpacket, else the issuer fingerprint's low 64 bits. */
  private static long issuer(PGPSignature s) {
    if (s.getKeyID() != 0) return s.getKeyID();
    var fp = s.getHashedSubPackets() == null ? null : s.getHashedSubPackets().getIssuerFingerprint();
    if (fp != null) {
      byte[] f = fp.getFingerprint();
      return ByteBuffer.wrap(f, f.length - 8, 8).getLong();
    }
    return 0;
  }
}
