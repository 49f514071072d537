package org.packyard.publish;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Date;
import java.util.Iterator;
import java.util.List;
import org.bouncycastle.bcpg.ArmoredOutputStream;
import org.bouncycastle.bcpg.BCPGOutputStream;
import org.bouncycastle.bcpg.HashAlgorithmTags;
import org.bouncycastle.bcpg.SymmetricKeyAlgorithmTags;
import org.bouncycastle.openpgp.PGPException;
import org.bouncycastle.openpgp.PGPPrivateKey;
import org.bouncycastle.openpgp.PGPPublicKey;
import org.bouncycastle.openpgp.PGPPublicKeyRing;
import org.bouncycastle.openpgp.PGPSecretKey;
import org.bouncycastle.openpgp.PGPSecretKeyRing;
import org.bouncycastle.openpgp.PGPSignature;
import org.bouncycastle.openpgp.PGPSignatureGenerator;
import org.bouncycastle.openpgp.PGPSignatureSubpacketGenerator;
import org.bouncycastle.openpgp.operator.bc.BcPBESecretKeyDecryptorBuilder;
import org.bouncycastle.openpgp.operator.bc.BcPGPContentSignerBuilder;
import org.bouncycastle.openpgp.operator.bc.BcPGPDigestCalculatorProvider;
import org.packyard.config.RepositoryConfig;
import org.packyard.config.Secret;

/**
 * Signs repomd.xml: a detached, ASCII-armored OpenPGP signature ({@code repodata/repomd.xml.asc})
 * made with a secret key from an armored key file (as {@code gpg --export-secret-keys --armor}
 * writes it; RSA, DSA, ECDSA and Ed25519 keys), and the armored public key for clients
 * ({@code repodata/repomd.xml.key}). The signing key is the newest valid signing subkey, else the
 * primary key when it may sign. Thread-safe; key material never leaves the object.
 *
 * <pre>{@code
 * RepomdSigner signer = RepomdSigner.load(Path.of("/etc/packyard/signing.asc"), passphrase);
 * byte[] asc = signer.sign(repomdXml);
 * byte[] key = signer.publicKey();
 * }</pre>
 */
public final class RepomdSigner {
  private final PGPPrivateKey privateKey;
  private final PGPPublicKey signingKey;
  private final byte[] armoredPublicKey;
  private final Clock clock;

  private RepomdSigner(PGPPrivateKey privateKey, PGPPublicKey signingKey, byte[] armoredPublicKey, Clock clock) {
    this.privateKey = privateKey;
    this.signingKey = signingKey;
    this.armoredPublicKey = armoredPublicKey;
    this.clock = clock;
  }

  /**
   * The signer of {@code repo}'s repomd.xml: its {@code signing_key} (its own or the top level's)
   * unlocked, or null when Packyard does not sign its metadata (no key, or an unfiltered mirror,
   * which relays the upstream's signature). The one place every publisher loads its signer.
   * Blocking (unlocking a key may take a fraction of a second); fails naming the repository and
   * the key file, never the passphrase.
   */
  public static RepomdSigner forRepository(RepositoryConfig repo) {
    if (!repo.signedMetadata()) return null;
    try {
      return load(repo.publishing().signingKey(), repo.publishing().signingPassphrase());
    } catch (KeyException e) {
      throw new IllegalStateException(repo.name() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Loads the first secret key in {@code file}, unlocking it with {@code passphrase} (null when it
   * has none). Fails, naming the file, when it is missing, not an OpenPGP secret key, has no key
   * that may sign, or the passphrase is missing or wrong.
   */
  public static RepomdSigner load(Path file, Secret passphrase) throws KeyException {
    return load(file, passphrase, Clock.systemUTC());
  }

  /** As {@link #load(Path, Secret)}, with signature times from {@code clock}. */
  public static RepomdSigner load(Path file, Secret passphrase, Clock clock) throws KeyException {
    PGPSecretKeyRing ring = null;
    boolean sawPublic = false;
    for (Object o : OpenPgpKeys.read(file, "an OpenPGP secret key")) {
      if (o instanceof PGPSecretKeyRing r) {
        ring = r;
        break;
      }
      if (o instanceof PGPPublicKeyRing) sawPublic = true;
    }
    if (ring == null) {
      throw new KeyException(file + ": not an OpenPGP secret key" + (sawPublic ? " (it holds a public key only; export it with gpg --export-secret-keys --armor)" : ""));
    }
    Date now = Date.from(clock.instant());
    PGPSecretKey chosen = null;
    for (Iterator<PGPSecretKey> it = ring.getSecretKeys(); it.hasNext(); ) {
      PGPSecretKey k = it.next();
      if (k.isPrivateKeyEmpty() || !OpenPgpKeys.canSign(k.getPublicKey(), k.isMasterKey(), now)) continue;
      if (chosen == null || chosen.isMasterKey() || (!k.isMasterKey() && k.getPublicKey().getCreationTime().after(chosen.getPublicKey().getCreationTime()))) {
        chosen = k;
      }
    }
    if (chosen == null) {
      throw new KeyException(file + ": no usable signing key (key " + OpenPgpKeys.fingerprint(ring.getPublicKey())
          + " has no secret key that may sign, or it is revoked or expired)");
    }
    boolean locked = chosen.getKeyEncryptionAlgorithm() != SymmetricKeyAlgorithmTags.NULL || chosen.getS2KUsage() != 0;
    if (locked && passphrase == null) {
      throw new KeyException(file + ": the key is protected by a passphrase: set PACKYARD_SIGNING_PASSPHRASE or signing_passphrase_file");
    }
    PGPPrivateKey priv;
    try {
      char[] pass = passphrase == null ? new char[0] : passphrase.reveal().toCharArray();
      priv = chosen.extractPrivateKey(new BcPBESecretKeyDecryptorBuilder(new BcPGPDigestCalculatorProvider()).build(pass));
      java.util.Arrays.fill(pass, '\0');
    } catch (PGPException | RuntimeException e) {
      throw new KeyException(file + ": cannot unlock the secret key" + (locked ? ": wrong passphrase" : " (" + e.getClass().getSimpleName() + ")"));
    }
    if (priv == null) throw new KeyException(file + ": the secret key holds no private key material");
    RepomdSigner signer = new RepomdSigner(priv, chosen.getPublicKey(), armor(ring.toCertificate()), clock);
    try {
      signer.sign(new byte[0]); // a key that cannot sign fails here, at load, not at the first publish
    } catch (RuntimeException e) {
      throw new KeyException(file + ": the key cannot sign (" + e.getClass().getSimpleName() + ")");
    }
    return signer;
  }

  /** A detached, armored signature of {@code data} (SHA-256), for {@code repomd.xml.asc}. */
  public byte[] sign(byte[] data) {
    try {
      PGPSignatureGenerator gen = new PGPSignatureGenerator(
          new BcPGPContentSignerBuilder(signingKey.getAlgorithm(), HashAlgorithmTags.SHA256), signingKey);
      gen.init(PGPSignature.BINARY_DOCUMENT, privateKey);
      PGPSignatureSubpacketGenerator hashed = new PGPSignatureSubpacketGenerator();
      hashed.setSignatureCreationTime(false, Date.from(clock.instant()));
      hashed.setIssuerFingerprint(false, signingKey);
      gen.setHashedSubpackets(hashed.generate());
      PGPSignatureSubpacketGenerator unhashed = new PGPSignatureSubpacketGenerator();
      unhashed.setIssuerKeyID(false, signingKey.getKeyID());
      gen.setUnhashedSubpackets(unhashed.generate());
      gen.update(data);
      PGPSignature sig = gen.generate();
      ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
      try (ArmoredOutputStream armored = ArmoredOutputStream.builder().clearHeaders().build(out);
          BCPGOutputStream bcpg = new BCPGOutputStream(armored)) {
        sig.encode(bcpg);
      }
      return out.toByteArray();
    } catch (PGPException e) {
      throw new IllegalStateException("signing failed: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The key's certificate (public keys, user ids, their signatures), armored, for {@code repomd.xml.key}. */
  public byte[] publicKey() {
    return armoredPublicKey.clone();
  }

  /** The fingerprint of the (sub)key that signs, upper-case hex. */
  public String signingFingerprint() {
    return OpenPgpKeys.fingerprint(signingKey);
  }

  @Override
  public String toString() {
    return "RepomdSigner[" + signingFingerprint() + "]";
  }

  private static byte[] armor(PGPPublicKeyRing cert) throws KeyException {
    List<PGPPublicKey> keys = new ArrayList<>();
    cert.getPublicKeys().forEachRemaining(keys::add);
    ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
    try (ArmoredOutputStream armored = ArmoredOutputStream.builder().clearHeaders().build(out)) {
      new PGPPublicKeyRing(keys).encode(armored, true);
    } catch (IOException e) {
      throw new KeyException("cannot encode the public key: " + e.getClass().getSimpleName());
    }
    return out.toByteArray();
  }
}
