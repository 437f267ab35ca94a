import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.util.Arrays;

/** Floor for the Java runner: a JVM (the runner's flags) starting and parsing every corpus file once with Jackson. */
public final class ReadCorpus {
    private ReadCorpus() {
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        File[] files = new File(args[0]).listFiles((dir, name) -> name.endsWith(".json") && !name.equals("manifest.json"));
        Arrays.sort(files);
        int count = 0;
        for (File f : files) {
            count += json.readTree(f).get("vectors").size();
        }
        System.out.println(count);
    }
}
