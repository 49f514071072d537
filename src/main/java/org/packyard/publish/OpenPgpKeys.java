package org.packyard.publish;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import org.bouncycastle.bcpg.sig.KeyFlags;
import org.bouncycastle.bcpg.PublicKeyAlgorithmTags;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureSubpacketVector;
import org.bouncycastle.openpgp.PGPUtil;
import org.bouncycastle.openpgp.bc.BcPGPObjectFactory;

/** Reading OpenPGP key files, shared by {@link RepomdSigner} and {@link PackageSignatures}. */
final class OpenPgpKeys {
  /** Key files are small; anything larger is not one. */
  private static final long MAX_KEY_FILE = 1 << 20;

  private OpenPgpKeys() {}

  /** Every OpenPGP object in an armored (or binary) key file; names the file when it cannot be read. */
  static List<Object> read(Path file, String what) throws KeyException {
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_KEY_FILE) throw new KeyException(file + ": not " + what + " (larger than 1 MiB)");
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new KeyException(file + ": no such file");
    } catch (IOException e) {
      throw new KeyException(file + ": cannot read (" + e.getClass().getSimpleName() + ")");
    }
    List<Object> out = new ArrayList<>();
    try (InputStream in = PGPUtil.getDecoderStream(new java.io.ByteArrayInputStream(bytes))) {
      BcPGPObjectFactory f = new BcPGPObjectFactory(in);
      for (Object o = f.nextObject(); o != null; o = f.nextObject()) out.add(o);
    } catch (IOException | RuntimeException e) {
      throw new KeyException(file + ": not " + what + " (not an OpenPGP key file: " + e.getClass().getSimpleName() + ")");
    }
    if (out.isEmpty()) throw new KeyException(file + ": not " + what + " (no OpenPGP data)");
    return out;
  }

  /**
   * Whether {@code key} may make data signatures now: not revoked, not expired, and its newest
   * self-signature's key flags allow signing (a primary key without key flags: by its algorithm).
   */
  static boolean canSign(PGPPublicKey key, boolean primary, Date now) {
    if (key.hasRevocation()) return false;
    long valid = key.getValidSeconds();
    if (valid > 0 && key.getCreationTime().getTime() + valid * 1000 < now.getTime()) return false;
    int flags = -1;
    Date newest = null;
    for (Iterator<PGPSignature> it = key.getSignatures(); it.hasNext(); ) {
      PGPSignature s = it.next();
      PGPSignatureSubpacketVector v = s.getHashedSubPackets();
      if (v == null || !v.hasSubpacket(org.bouncycastle.bcpg.SignatureSubpacketTags.KEY_FLAGS)) continue;
      if (newest == null || s.getCreationTime().after(newest)) {
        newest = s.getCreationTime();
        flags = v.getKeyFlags();
      }
    }
    if (flags == -1) return primary && isSigningAlgorithm(key.getAlgorithm());
    return (flags & KeyFlags.SIGN_DATA) != 0 && isSigningAlgorithm(key.getAlgorithm());
  }

  private static boolean isSigningAlgorithm(int algorithm) {
    return switch (algorithm) {
      case PublicKeyAlgorithmTags.RSA_GENERAL, PublicKeyAlgorithmTags.RSA_SIGN, PublicKeyAlgorithmTags.DSA, PublicKeyAlgorithmTags.ECDSA,
          PublicKeyAlgorithmTags.EDDSA_LEGACY, PublicKeyAlgorithmTags.Ed25519, PublicKeyAlgorithmTags.Ed448 -> true;
      default -> false;
    };
  }

  /** {@code 0x} and the key's 16-digit id, as gpg and rpm show it. */
  static String keyId(long id) {
    return "0x" + HexFormat.of().withUpperCase().toHexDigits(id);
  }

  static String fingerprint(PGPPublicKey key) {
    return HexFormat.of().withUpperCase().formatHex(key.getFingerprint());
  }
}
